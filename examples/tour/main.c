/* The xffi tour: what the C API offers, part by part, with readable output. */
#include <xffi/xffi.h>

#include "tour.h"

int main(void) {
  printf("xffi %s (ABI %d): a tour of the C API\n", xffi_version(), (int)xffi_abi_version());
  tour_core();
  tour_functions();
  tour_containers();
  tour_tensors();
  tour_reflection();
  printf("\nThe tour is over; every object it made has been freed.\n");
  return 0;
}
