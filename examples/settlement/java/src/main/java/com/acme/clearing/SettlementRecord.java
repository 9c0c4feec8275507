package com.acme.clearing;

import java.time.Instant;

/** What the clearing service keeps of each settlement. */
public class SettlementRecord {
    private String instructionId;
    private String status;
    private String rail;
    private Instant createdAt;

    public String getStatus() {
        return status;
    }

    public String getRail() {
        return rail;
    }
}
