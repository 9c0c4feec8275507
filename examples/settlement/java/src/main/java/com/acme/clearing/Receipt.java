package com.acme.clearing;

public record Receipt(String instructionId, String reference, long amountMinor) {
}
