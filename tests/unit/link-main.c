/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * link-main.c - the main of the link checks in meson.build: one fs/
 * library linked whole against the libraries below it and no others, so
 * that any call from it upwards (the text engine calling the tree, say)
 * is an undefined reference and the build fails.  It runs nothing.
 */
int main(void);

int main(void)
{
	return 0;
}
