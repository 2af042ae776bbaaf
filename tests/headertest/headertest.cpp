// Every public header, compiled as C++.
#include "skit/skit.h"

int main()
{
	return skit_strerror(SKIT_OK) ? 0 : 1;
}
