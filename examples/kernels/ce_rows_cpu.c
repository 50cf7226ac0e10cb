/* ce_rows_cpu.c - ce_rows.cu built for the CPU (kDLCPU, host pointers): the
 * same kernels, a block's threads run one after another. */
#include "ce_rows.cu"
