/* The NPU's interrupt line in model firmware (npu_irq.c): its vector, and the NVIC's enable and set-pending
 * registers for it. */
#ifndef MX_NPU_IRQ_H
#define MX_NPU_IRQ_H

void mx_npu_irq(void);        /* the NPU's handler: npu_platform.c hands it to the driver */
void mx_npu_irq_enable(void); /* NVIC: the line may interrupt from now on */
void mx_npu_irq_raise(void);  /* NVIC: the line's interrupt is pending, as if the NPU had raised it */

#endif
