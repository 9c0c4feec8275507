package com.acme.clearing;

public class FedwireRail implements ClearingRail {
    @Override
    public Receipt submit(Instruction instruction) {
        return new Receipt(instruction.id(), code() + "-" + instruction.id(), instruction.amountMinor());
    }

    @Override
    public String code() {
        return "FEDWIRE";
    }
}
