package com.acme.settlement;

public interface SettlementEngine {
    int MAX_ATTEMPTS = 3;

    void retry(String instructionId, int attempt);
}
