package com.acme.clearing;

import org.springframework.aot.generate.Generated;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.RootBeanDefinition;

/**
 * Bean definitions for {@link InstantRail}.
 */
@Generated
public class InstantRail__BeanDefinitions {
  /**
   * Get the bean definition for 'instantRail'.
   */
  public static BeanDefinition getInstantRailBeanDefinition() {
    RootBeanDefinition beanDefinition = new RootBeanDefinition(InstantRail.class);
    beanDefinition.setPrimary(true);
    beanDefinition.setInstanceSupplier(InstantRail::new);
    return beanDefinition;
  }
}
