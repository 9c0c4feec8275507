package com.acme.clearing;

/** A typed handler; implementations get a compiler-written bridge method for the erased signature. */
public interface ReceiptHandler<T> {
    void handle(T message);
}
