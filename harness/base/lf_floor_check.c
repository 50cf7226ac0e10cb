/* lf_floor_check.c - the program each floor's library is linked into whole, with the floors below it
 * only (harness/CMakeLists.txt, lf_floor_check): it links when the floor calls nothing above it. */
int main(void) { return 0; }
