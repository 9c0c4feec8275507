package com.acme.clearing;

import org.mapstruct.Mapper;

/** Mapping written by an annotation processor at build time (InstructionMapperImpl); the source has only this interface. */
@Mapper(componentModel = "spring")
public interface InstructionMapper {
    InstructionDto toDto(Instruction instruction);
}
