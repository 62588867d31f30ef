/* examples/tour/tour.h: the parts of the tour, one file each. */
#ifndef XFFI_TOUR_H
#define XFFI_TOUR_H

#include <stdio.h>

/* Prints a section heading. */
static inline void tour_heading(const char *title) { printf("\n== %s ==\n", title); }

void tour_core(void);
void tour_functions(void);
void tour_containers(void);
void tour_tensors(void);

#endif /* XFFI_TOUR_H */
