/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORFS transport tracepoints: sends, receives, completions and errors.
 * The VFS-level events (reads, write-back, O_DIRECT, lookup, revalidation)
 * are in fs/orfs_fs_trace.h, in the same system.
 *
 *	echo 1 > /sys/kernel/tracing/events/orfs/enable
 *
 * Strings are copied with strscpy() into the room __string() measured,
 * which every kernel generation takes (6.10 changed __assign_str()).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM orfs

#if !defined(_TRACE_ORFS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_ORFS_H

#include <linux/tracepoint.h>

TRACE_EVENT(orfs_send,
	TP_PROTO(const void *conn, u64 xid, u16 opcode, u32 body_len, u32 data_len),
	TP_ARGS(conn, xid, opcode, body_len, data_len),
	TP_STRUCT__entry(
		__field(const void *, conn)
		__field(u64, xid)
		__field(u16, opcode)
		__field(u32, body_len)
		__field(u32, data_len)
	),
	TP_fast_assign(
		__entry->conn = conn;
		__entry->xid = xid;
		__entry->opcode = opcode;
		__entry->body_len = body_len;
		__entry->data_len = data_len;
	),
	TP_printk("conn=%p xid=%#llx op=%u body=%u data=%u",
		  __entry->conn, __entry->xid, __entry->opcode,
		  __entry->body_len, __entry->data_len)
);

TRACE_EVENT(orfs_recv,
	TP_PROTO(const void *conn, u64 xid, u16 opcode, u32 status, u32 len),
	TP_ARGS(conn, xid, opcode, status, len),
	TP_STRUCT__entry(
		__field(const void *, conn)
		__field(u64, xid)
		__field(u16, opcode)
		__field(u32, status)
		__field(u32, len)
	),
	TP_fast_assign(
		__entry->conn = conn;
		__entry->xid = xid;
		__entry->opcode = opcode;
		__entry->status = status;
		__entry->len = len;
	),
	TP_printk("conn=%p xid=%#llx op=%u status=%u len=%u",
		  __entry->conn, __entry->xid, __entry->opcode,
		  __entry->status, __entry->len)
);

TRACE_EVENT(orfs_wc_error,
	TP_PROTO(const void *conn, const char *what, int status, u32 vendor_err),
	TP_ARGS(conn, what, status, vendor_err),
	TP_STRUCT__entry(
		__field(const void *, conn)
		__string(what, what)
		__field(int, status)
		__field(u32, vendor_err)
	),
	TP_fast_assign(
		__entry->conn = conn;
		strscpy(__get_str(what), what, __get_dynamic_array_len(what));
		__entry->status = status;
		__entry->vendor_err = vendor_err;
	),
	TP_printk("conn=%p %s completion failed: status=%d vendor_err=%#x",
		  __entry->conn, __get_str(what), __entry->status,
		  __entry->vendor_err)
);

TRACE_EVENT(orfs_rdma,
	TP_PROTO(const void *conn, const char *what, u32 grant, u32 bytes),
	TP_ARGS(conn, what, grant, bytes),
	TP_STRUCT__entry(
		__field(const void *, conn)
		__string(what, what)
		__field(u32, grant)
		__field(u32, bytes)
	),
	TP_fast_assign(
		__entry->conn = conn;
		strscpy(__get_str(what), what, __get_dynamic_array_len(what));
		__entry->grant = grant;
		__entry->bytes = bytes;
	),
	TP_printk("conn=%p rdma %s staging buffer %u, %u bytes",
		  __entry->conn, __get_str(what), __entry->grant, __entry->bytes)
);

TRACE_EVENT(orfs_request_error,
	TP_PROTO(const void *conn, u64 xid, u16 opcode, int error),
	TP_ARGS(conn, xid, opcode, error),
	TP_STRUCT__entry(
		__field(const void *, conn)
		__field(u64, xid)
		__field(u16, opcode)
		__field(int, error)
	),
	TP_fast_assign(
		__entry->conn = conn;
		__entry->xid = xid;
		__entry->opcode = opcode;
		__entry->error = error;
	),
	TP_printk("conn=%p xid=%#llx op=%u error=%d",
		  __entry->conn, __entry->xid, __entry->opcode, __entry->error)
);

TRACE_EVENT(orfs_conn_state,
	TP_PROTO(const void *conn, const char *state, int error),
	TP_ARGS(conn, state, error),
	TP_STRUCT__entry(
		__field(const void *, conn)
		__string(state, state)
		__field(int, error)
	),
	TP_fast_assign(
		__entry->conn = conn;
		strscpy(__get_str(state), state, __get_dynamic_array_len(state));
		__entry->error = error;
	),
	TP_printk("conn=%p %s error=%d", __entry->conn, __get_str(state),
		  __entry->error)
);

#endif /* _TRACE_ORFS_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE orfs_trace

/* This part must be outside protection */
#include <trace/define_trace.h>
