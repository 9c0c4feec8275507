package com.acme.clearing;

import org.springframework.aot.generate.Generated;
import org.springframework.beans.factory.aot.BeanInstanceSupplier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.RootBeanDefinition;

/**
 * Bean definitions for {@link ClearingController}.
 */
@Generated
public class ClearingController__BeanDefinitions {
  /**
   * Get the bean instance supplier for 'clearingController'.
   */
  private static BeanInstanceSupplier<ClearingController> getClearingControllerInstanceSupplier() {
    return BeanInstanceSupplier.<ClearingController>forConstructor(SettlementProcessor.class, RailRegistry.class)
            .withGenerator((registeredBean, args) -> new ClearingController(args.get(0), args.get(1)));
  }

  /**
   * Get the bean definition for 'clearingController'.
   */
  public static BeanDefinition getClearingControllerBeanDefinition() {
    RootBeanDefinition beanDefinition = new RootBeanDefinition(ClearingController.class);
    beanDefinition.setInstanceSupplier(getClearingControllerInstanceSupplier());
    return beanDefinition;
  }
}
