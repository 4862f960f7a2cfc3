/* blob.S: init.elf (exec/init/init.c, built freestanding) as read-only
 * data in airlock, so the sandbox's init needs no installed file. */
	.section .rodata
	.balign 16
	.globl sbx_init_elf
	.globl sbx_init_elf_end
sbx_init_elf:
	.incbin INIT_ELF
sbx_init_elf_end:
	.section .note.GNU-stack,"",%progbits
