package com.acme.clearing;

import org.springframework.aot.generate.Generated;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.RootBeanDefinition;

/**
 * Bean definitions for {@link ReconciliationListener}.
 */
@Generated
public class ReconciliationListener__BeanDefinitions {
  /**
   * Get the bean definition for 'reconciliationListener'.
   */
  public static BeanDefinition getReconciliationListenerBeanDefinition() {
    RootBeanDefinition beanDefinition = new RootBeanDefinition(ReconciliationListener.class);
    beanDefinition.setInstanceSupplier(ReconciliationListener::new);
    return beanDefinition;
  }
}
