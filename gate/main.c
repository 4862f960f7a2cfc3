/* main.c: placeholder while the gate is written (foundation issue). */
#include "core/airlock.h"
int main(void);
int main(void)
{
	return EXIT_USAGE;
}
