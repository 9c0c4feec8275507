package com.acme.clearing;

/** A clearing rail an instruction can be submitted to. Six implementations; production's is chosen by the container. */
public interface ClearingRail {
    Receipt submit(Instruction instruction);

    String code();
}
