package com.acme.clearing;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.stereotype.Component;

/** Rails chosen by the instruction itself (the rail code it carries), constructed here. */
@Component
public class RailRegistry {
    private final Map<String, ClearingRail> rails = new LinkedHashMap<>();

    public RailRegistry() {
        register(new SepaRail());
        register(new ChapsRail());
        register(new FedwireRail());
        register(new SwiftRail());
        register(new TargetTwoRail());
    }

    private void register(ClearingRail rail) {
        rails.put(rail.code(), rail);
    }

    public Receipt submitVia(Instruction instruction) {
        ClearingRail rail = rails.get(instruction.rail());
        if (rail == null) {
            throw new IllegalArgumentException("unknown rail " + instruction.rail());
        }
        return rail.submit(instruction);
    }

    public Receipt submitSepaDirect(Instruction instruction) {
        SepaRail sepa = new SepaRail();
        return sepa.submit(instruction);
    }
}
