package com.acme.settlement;

import java.util.List;

/** Scheduled job that retries instructions the settlement engine parked. */
public class SettlementRetryJob {
    private final SettlementEngine engine;

    public SettlementRetryJob(SettlementEngine engine) {
        this.engine = engine;
    }

    public int retryParked(List<String> parked) {
        int retried = 0;
        for (String id : parked) {
            engine.retry(id, 1);
            retried++;
        }
        return retried;
    }
}
