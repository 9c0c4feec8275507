package com.acme.clearing;

import java.lang.reflect.Method;
import java.util.List;
import java.util.function.Function;
import org.springframework.stereotype.Component;

/** Re-submits parked instructions: through a method reference, and by name for the operators' console. */
@Component
public class ReplayJob {
    private final ClearingRail rail;

    public ReplayJob(ClearingRail rail) {
        this.rail = rail;
    }

    public void replay(List<Instruction> parked) {
        Function<Instruction, Receipt> submit = rail::submit;
        parked.forEach(submit::apply);
    }

    public Object replayByName(Object target, String operation, Instruction instruction) throws Exception {
        Method m = target.getClass().getMethod(operation, Instruction.class);
        return m.invoke(target, instruction);
    }
}
