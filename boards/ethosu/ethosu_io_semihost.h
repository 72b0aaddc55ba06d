/* The simulation build's register access: the NPU's registers as a file in RAM whose start hands the job to
 * the host over semihosting, for boards whose simulator has no Ethos-U (QEMU's mps3-an547).
 *
 * The driver (ethosu_driver.c) runs unchanged: it programs QBASE/QSIZE, the base pointers and REGIONCFG, then
 * writes CMD.start. Here that write sends the job (the command words and the bytes of each declared region) to
 * the host through one named pipe in the semihosting working folder, and blocks in SYS_READ on a second pipe
 * until the host, having run the job on its NPU simulator, answers with the STATUS the NPU ends in and the
 * bytes of the writable regions, which land where the base pointers point. STATUS then reads as the hardware
 * would leave it: irq_raised, plus cmd_end_reached (done) or the fault bits the host reports. Nothing else
 * in the firmware differs from the device build (ethosu_io_mmio.c): base pointers, arena, input/output copies.
 *
 * The register file models what ethosu_io_ram.c models: read-only ID/CONFIG/STATUS/PROT/QREAD, RESET (every
 * register back to its reset value, CMD 0xC, PROT the written level; the reset completes at once), CMD
 * (Q bits kept, clear_irq, start), QBASE/QSIZE clearing cmd_end_reached, the PMU's PMCR/PMCNTENSET/PMCNTENCLR;
 * after each job the PMU's cycle counter (PMCCNTR) advances by the cycles the reply reports, if the driver
 * started it, so that the driver reads it as from silicon (our simulator reports 0: no count, no report).
 * Registers past 0x200 read 0 and ignore writes (the driver uses none of them; the U85's PMU, at 0x1180, is
 * past them and so counts nothing here).
 *
 * The NPU's registers do not say how big a region is, so the firmware declares each region's size once
 * (mx_ethosu_semihost_region); a region of size 0 is not sent. Base pointers are CPU addresses here.
 *
 * Channel (files relative to the simulator's semihosting folder; the host creates both FIFOs, mkfifo):
 *   MX_ETHOSU_SEMIHOST_REPLY_PIPE  host -> firmware, opened "rb" first: no such file = no host (an error at
 *                                  once); the open completes when the host opens its end
 *   MX_ETHOSU_SEMIHOST_JOB_PIPE    firmware -> host, opened "wb" next
 * Both stay open from the first job on. Wire format, version 2, every field a little-endian 32-bit word
 * (mcu_export/runners/npu_seam.py implements the host side and documents the same layout):
 *
 *   job   word 0   magic 0x4A4E584D ("MXNJ")
 *              1   version (2)
 *              2   header bytes (160)
 *              3   total bytes: header + command words + region bytes
 *              4   sequence: the job's number, 1, 2, ... since init (counting jobs that failed before sending)
 *              5,6 ID and CONFIG as this register file reports them
 *              7,8 QBASE low, high (a firmware address; for checking only)
 *              9   QSIZE: bytes of command words that follow the header
 *             10   QCONFIG     11  REGIONCFG
 *          12..27  BASEP0..7, low and high word each (firmware addresses; for checking only)
 *          28..35  size of region 0..7 (0: not used)
 *             36   in mask: bit n set = region n's bytes follow, ascending n, after the command words
 *             37   out mask: bit n set = the host sends region n back (every used region not read-only)
 *          38,39   0
 *   reply word 0   magic 0x524E584D ("MXNR")
 *              1   version (2)
 *              2   header bytes (40)
 *              3   total bytes: header + region bytes
 *              4   sequence, echoed
 *              5   result: 0 executed; 1 the host could not take the job; 2 its executor failed
 *              6   STATUS as the NPU leaves it (0x22 = cmd_end_reached | irq_raised; a fault: its bits)
 *              7   out mask: the job's out mask when executed, else 0
 *            8,9   NPU cycles the job took, low and high word, as the executor counted them (0: not counted);
 *                  then the out mask's regions' bytes
 * (Version 2 added the cycles: version 1's reply had 8 words.)
 *
 * Errors of the channel itself (no host, a broken pipe, a reply that does not match its job) end the job as a
 * stop before the end of the stream (STATUS = irq_raised only: the driver returns MX_ETHOSU_E_NOT_ENDED and
 * resets), print one line "mx: npu seam: <reason>" and are kept for mx_ethosu_semihost_error. After an
 * I/O or framing error the channel stays closed and every later job fails the same way, at once. A job the
 * host refused (result 1 or 2) leaves the channel open.
 */
#ifndef MX_ETHOSU_IO_SEMIHOST_H
#define MX_ETHOSU_IO_SEMIHOST_H

#include <stdint.h>

#include "ethosu_io.h"
#include "ethosu_regs.h"

#define MX_ETHOSU_SEMIHOST_JOB_PIPE "npu_job.fifo"
#define MX_ETHOSU_SEMIHOST_REPLY_PIPE "npu_reply.fifo"
#define MX_ETHOSU_SEMIHOST_VERSION 2u
#define MX_ETHOSU_SEMIHOST_JOB_MAGIC 0x4A4E584Du   /* "MXNJ" */
#define MX_ETHOSU_SEMIHOST_REPLY_MAGIC 0x524E584Du /* "MXNR" */
#define MX_ETHOSU_SEMIHOST_JOB_WORDS 40u
#define MX_ETHOSU_SEMIHOST_REPLY_WORDS 10u
#define MX_ETHOSU_SEMIHOST_REGS 0x200u /* bytes of register file kept: ID .. BASEP7_HI, the PMU's cycle counter */
#define MX_ETHOSU_SEMIHOST_REGIONS 8

/* Errors of the channel: 0 or one of these (mx_ethosu_semihost_strerror). */
enum {
  MX_ETHOSU_SEMIHOST_OK = 0,
  MX_ETHOSU_SEMIHOST_E_NO_HOST = -1,  /* the reply pipe could not be opened: no host serves this folder */
  MX_ETHOSU_SEMIHOST_E_JOB_PIPE = -2, /* the job pipe could not be opened */
  MX_ETHOSU_SEMIHOST_E_WRITE = -3,    /* the host stopped reading the job */
  MX_ETHOSU_SEMIHOST_E_READ = -4,     /* the reply ended early: the host went away */
  MX_ETHOSU_SEMIHOST_E_REPLY = -5,    /* a reply that does not match its job (magic, version, sequence, sizes) */
  MX_ETHOSU_SEMIHOST_E_REFUSED = -6,  /* the host could not run the job (its result word is not 0) */
  MX_ETHOSU_SEMIHOST_E_REGION = -7,   /* a declared region without a base pointer, or past the 32-bit space */
  MX_ETHOSU_SEMIHOST_E_CLOSED = -8,   /* an earlier error closed the channel */
};

struct mx_ethosu_io {
  uint32_t regs[MX_ETHOSU_SEMIHOST_REGS / 4u];
  uint32_t id, config;                        /* what ID and CONFIG read */
  uint32_t size[MX_ETHOSU_SEMIHOST_REGIONS]; /* bytes of each region sent to the host (0: none) */
  uint32_t read_only;                         /* mask: regions the host does not send back (weights) */
  int job, reply;                             /* semihosting handles, -1 until the first job opens them */
  uint32_t sequence;                          /* jobs started (CMD.start) since init */
  int error;                                  /* the last job's channel error (0: none) */
  int closed;                                 /* an I/O or framing error closed the channel */
  uint32_t refused;                           /* the last reply's result word */
  uint32_t transfers;                         /* SYS_READ/SYS_WRITE calls on the channel so far */
  void (*on_done)(void *ctx);                 /* optional: called once STATUS holds a job's end */
  void *ctx;
};

/* A register file that reads `id` and `config` (the NPU the board has, e.g. Corstone-300's U55-128:
 * 0x10104201, 0x00001807), in the state after reset; no region declared; nothing opened yet. */
void mx_ethosu_semihost_init(mx_ethosu_io *io, uint32_t id, uint32_t config);

/* Region n (0..7) is `size` bytes from its base pointer; read_only: the host gets it but does not send it
 * back (Vela's region 0, the weights). Returns 0, or -1 for n out of range. */
int mx_ethosu_semihost_region(mx_ethosu_io *io, int n, uint32_t size, int read_only);

/* Calls on_done(ctx) at the end of each job, after STATUS is set: where the NPU would raise its interrupt.
 * A firmware whose driver waits for the interrupt (mx_ethosu_config.irq) passes a function that pends the
 * NPU's IRQ in the NVIC, or that calls mx_ethosu_irq_handler directly. NULL: none (polling). */
void mx_ethosu_semihost_on_done(mx_ethosu_io *io, void (*on_done)(void *ctx), void *ctx);

/* The last job's channel error (0, or MX_ETHOSU_SEMIHOST_E_*) and its text. */
int mx_ethosu_semihost_error(const mx_ethosu_io *io);
const char *mx_ethosu_semihost_strerror(int err);

#endif /* MX_ETHOSU_IO_SEMIHOST_H */
