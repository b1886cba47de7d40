/* Creates the file its argument names: a call a policy learned from
 * /bin/true denies (t_lib_notify). */
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd;

	if (argc < 2)
		return 2;
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	return fd < 0 ? 1 : 0;
}
