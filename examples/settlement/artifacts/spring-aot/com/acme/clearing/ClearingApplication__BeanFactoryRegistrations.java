package com.acme.clearing;

import org.springframework.aot.generate.Generated;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/**
 * Register bean definitions for the bean factory.
 */
@Generated
public class ClearingApplication__BeanFactoryRegistrations {
  /**
   * Register the bean definitions.
   */
  public void registerBeanDefinitions(DefaultListableBeanFactory beanFactory) {
    beanFactory.registerBeanDefinition("clearingController", ClearingController__BeanDefinitions.getClearingControllerBeanDefinition());
    beanFactory.registerBeanDefinition("settlementProcessor", SettlementProcessor__BeanDefinitions.getSettlementProcessorBeanDefinition());
    beanFactory.registerBeanDefinition("instantRail", InstantRail__BeanDefinitions.getInstantRailBeanDefinition());
    beanFactory.registerBeanDefinition("instructionMapperImpl", InstructionMapperImpl__BeanDefinitions.getInstructionMapperImplBeanDefinition());
    beanFactory.registerBeanDefinition("settlementEvents", SettlementEvents__BeanDefinitions.getSettlementEventsBeanDefinition());
    beanFactory.registerBeanDefinition("railRegistry", RailRegistry__BeanDefinitions.getRailRegistryBeanDefinition());
    beanFactory.registerBeanDefinition("replayJob", ReplayJob__BeanDefinitions.getReplayJobBeanDefinition());
    beanFactory.registerBeanDefinition("reconciliationListener", ReconciliationListener__BeanDefinitions.getReconciliationListenerBeanDefinition());
  }
}
