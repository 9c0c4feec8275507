package com.acme.clearing;

import org.springframework.aot.generate.Generated;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.RootBeanDefinition;

/**
 * Bean definitions for {@link InstructionMapperImpl}.
 */
@Generated
public class InstructionMapperImpl__BeanDefinitions {
  /**
   * Get the bean definition for 'instructionMapperImpl'.
   */
  public static BeanDefinition getInstructionMapperImplBeanDefinition() {
    RootBeanDefinition beanDefinition = new RootBeanDefinition(InstructionMapperImpl.class);
    beanDefinition.setInstanceSupplier(InstructionMapperImpl::new);
    return beanDefinition;
  }
}
