/* examples/tour/tour.h: the parts of the tour, one file each. */
#ifndef XFFI_TOUR_H
#define XFFI_TOUR_H

#include <stdio.h>
#include <xffi/any.h>

/* Prints a section heading. */
static inline void tour_heading(const char *title) { printf("\n== %s ==\n", title); }

/* Prints one value briefly (nested containers included). v is borrowed. */
void tour_print_any(const xffi_any *v);

/* Prints the raised error (kind, message, one line per frame of its
 * backtrace) after `what` padded to width, then frees it: the slot is
 * empty afterwards. */
void tour_show_error(const char *what, int width);

void tour_core(void);
void tour_functions(void);
void tour_containers(void);
void tour_tensors(void);
void tour_reflection(void);

#endif /* XFFI_TOUR_H */
