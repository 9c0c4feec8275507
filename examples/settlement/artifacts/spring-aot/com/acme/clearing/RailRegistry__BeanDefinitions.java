package com.acme.clearing;

import org.springframework.aot.generate.Generated;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.RootBeanDefinition;

/**
 * Bean definitions for {@link RailRegistry}.
 */
@Generated
public class RailRegistry__BeanDefinitions {
  /**
   * Get the bean definition for 'railRegistry'.
   */
  public static BeanDefinition getRailRegistryBeanDefinition() {
    RootBeanDefinition beanDefinition = new RootBeanDefinition(RailRegistry.class);
    beanDefinition.setInstanceSupplier(RailRegistry::new);
    return beanDefinition;
  }
}
