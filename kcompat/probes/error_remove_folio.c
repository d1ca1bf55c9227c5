// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS_HAVE_ERROR_REMOVE_FOLIO: the address-space operation that drops a
 * poisoned folio is ->error_remove_folio, generic_error_remove_folio()
 * (Linux 6.8; before, ->error_remove_page and generic_error_remove_page()).
 */
#include <linux/fs.h>
#include <linux/mm.h>

const struct address_space_operations orfs_probe_aops = {
	.error_remove_folio	= generic_error_remove_folio,
};
