package com.acme.clearing;

import io.opentelemetry.instrumentation.annotations.WithSpan;
import org.springframework.stereotype.Service;

/** Submits instructions to the rail the container wired in, and announces the result. */
@Service
public class SettlementProcessor {
    private final ClearingRail rail;
    private final InstructionMapper mapper;
    private final SettlementEvents events;

    public SettlementProcessor(ClearingRail rail, InstructionMapper mapper, SettlementEvents events) {
        this.rail = rail;
        this.mapper = mapper;
        this.events = events;
    }

    @WithSpan
    public InstructionDto process(Instruction instruction) {
        Receipt receipt = rail.submit(instruction);
        events.completed(receipt);
        return mapper.toDto(instruction);
    }
}
