#include <stdio.h>

int main(void)
{
	puts("hello from the demo project");
	return 0;
}
