/* A dynamic program whose PT_INTERP names h_interp, a static program
 * that is no loader (see the Makefile). */
int main(void)
{
	return 0;
}
