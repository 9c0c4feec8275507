package com.acme.clearing;

import org.springframework.aot.generate.Generated;
import org.springframework.beans.factory.aot.BeanInstanceSupplier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.RootBeanDefinition;

/**
 * Bean definitions for {@link SettlementProcessor}.
 */
@Generated
public class SettlementProcessor__BeanDefinitions {
  /**
   * Get the bean instance supplier for 'settlementProcessor'.
   */
  private static BeanInstanceSupplier<SettlementProcessor> getSettlementProcessorInstanceSupplier() {
    return BeanInstanceSupplier.<SettlementProcessor>forConstructor(ClearingRail.class, InstructionMapper.class, SettlementEvents.class)
            .withGenerator((registeredBean, args) -> new SettlementProcessor(args.get(0), args.get(1), args.get(2)));
  }

  /**
   * Get the bean definition for 'settlementProcessor'.
   */
  public static BeanDefinition getSettlementProcessorBeanDefinition() {
    RootBeanDefinition beanDefinition = new RootBeanDefinition(SettlementProcessor.class);
    beanDefinition.setInstanceSupplier(getSettlementProcessorInstanceSupplier());
    return beanDefinition;
  }
}
