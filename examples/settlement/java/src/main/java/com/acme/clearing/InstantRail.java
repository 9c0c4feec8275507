package com.acme.clearing;

import io.opentelemetry.instrumentation.annotations.WithSpan;
import org.springframework.context.annotation.Primary;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Service;

/**
 * Production's rail. Nothing in the source constructs it or names it: the
 * container injects it wherever a ClearingRail is asked for.
 */
@Service
@Primary
@Profile("prod")
public class InstantRail implements ClearingRail {
    @Override
    @WithSpan
    public Receipt submit(Instruction instruction) {
        if (instruction.amountMinor() > 10_000_000L) {
            throw new IllegalArgumentException("instant payments are capped");
        }
        return new Receipt(instruction.id(), "INST-" + instruction.id(), instruction.amountMinor());
    }

    @Override
    public String code() {
        return "INSTANT";
    }
}
