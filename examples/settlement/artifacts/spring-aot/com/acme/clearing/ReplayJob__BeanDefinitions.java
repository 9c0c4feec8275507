package com.acme.clearing;

import org.springframework.aot.generate.Generated;
import org.springframework.beans.factory.aot.BeanInstanceSupplier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.RootBeanDefinition;

/**
 * Bean definitions for {@link ReplayJob}.
 */
@Generated
public class ReplayJob__BeanDefinitions {
  /**
   * Get the bean instance supplier for 'replayJob'.
   */
  private static BeanInstanceSupplier<ReplayJob> getReplayJobInstanceSupplier() {
    return BeanInstanceSupplier.<ReplayJob>forConstructor(ClearingRail.class)
            .withGenerator((registeredBean, args) -> new ReplayJob(args.get(0)));
  }

  /**
   * Get the bean definition for 'replayJob'.
   */
  public static BeanDefinition getReplayJobBeanDefinition() {
    RootBeanDefinition beanDefinition = new RootBeanDefinition(ReplayJob.class);
    beanDefinition.setInstanceSupplier(getReplayJobInstanceSupplier());
    return beanDefinition;
  }
}
