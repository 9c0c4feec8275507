package com.acme.clearing;

import org.springframework.aot.generate.Generated;
import org.springframework.beans.factory.aot.BeanInstanceSupplier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * Bean definitions for {@link SettlementEvents}.
 */
@Generated
public class SettlementEvents__BeanDefinitions {
  /**
   * Get the bean instance supplier for 'settlementEvents'.
   */
  private static BeanInstanceSupplier<SettlementEvents> getSettlementEventsInstanceSupplier() {
    return BeanInstanceSupplier.<SettlementEvents>forConstructor(KafkaTemplate.class)
            .withGenerator((registeredBean, args) -> new SettlementEvents(args.get(0)));
  }

  /**
   * Get the bean definition for 'settlementEvents'.
   */
  public static BeanDefinition getSettlementEventsBeanDefinition() {
    RootBeanDefinition beanDefinition = new RootBeanDefinition(SettlementEvents.class);
    beanDefinition.setInstanceSupplier(getSettlementEventsInstanceSupplier());
    return beanDefinition;
  }
}
