/* ce_linear_cpu.c - ce_linear.cu built for the CPU (kDLCPU, host pointers):
 * the same kernels, one row after another. */
#include "ce_linear.cu"
