package com.acme.clearing;

import java.util.ArrayList;
import java.util.List;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/** Consumes settlement outcomes. Nothing in the source calls it: the Kafka container does. */
@Component
public class ReconciliationListener implements ReceiptHandler<Receipt> {
    private final List<String> settled = new ArrayList<>();

    @Override
    @KafkaListener(topics = SettlementEvents.COMPLETED, groupId = "clearing-reconciliation")
    public void handle(Receipt receipt) {
        settled.add(receipt.reference());
    }
}
