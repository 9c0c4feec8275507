package com.acme.clearing;

/** What the API returns; built by the generated InstructionMapperImpl. */
public record InstructionDto(String id, String currency, long amountMinor, String status) {
}
