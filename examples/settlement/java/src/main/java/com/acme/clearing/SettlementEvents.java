package com.acme.clearing;

import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Component;

/** Publishes settlement outcomes; ReconciliationListener and the reconciliation service consume them. */
@Component
public class SettlementEvents {
    public static final String COMPLETED = "settlement.completed";

    private final KafkaTemplate<String, Receipt> kafka;

    public SettlementEvents(KafkaTemplate<String, Receipt> kafka) {
        this.kafka = kafka;
    }

    public void completed(Receipt receipt) {
        kafka.send(COMPLETED, receipt.instructionId(), receipt);
    }
}
