/* Every public header, compiled as strict C11. */
#include "skit/skit.h"

int main(void)
{
	return skit_strerror(SKIT_OK) ? 0 : 1;
}
