package com.acme.clearing;

import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/clearing")
public class ClearingController {
    private final SettlementProcessor processor;
    private final RailRegistry registry;

    public ClearingController(SettlementProcessor processor, RailRegistry registry) {
        this.processor = processor;
        this.registry = registry;
    }

    @PostMapping("/instructions/{id}/submit")
    public InstructionDto submit(@PathVariable("id") String id) {
        return processor.process(new Instruction(id, "INSTANT", 1_000L, "EUR"));
    }

    @PostMapping("/instructions/{id}/route")
    public Receipt route(@PathVariable("id") String id) {
        return registry.submitVia(new Instruction(id, "SEPA", 1_000L, "EUR"));
    }
}
