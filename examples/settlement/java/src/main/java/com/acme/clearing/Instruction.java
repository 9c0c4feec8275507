package com.acme.clearing;

/** A settlement instruction. Its accessors (id(), amountMinor(), …) are written by the compiler. */
public record Instruction(String id, String rail, long amountMinor, String currency) {
}
