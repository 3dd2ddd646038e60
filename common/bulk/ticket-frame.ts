// The bulk path's ticket frame: the data-path ticket (common/auth/ticket.ts)
// for the requests that follow it on a connection, until the next one. A
// client sends it before a request whose file's ticket differs from the last
// one it sent on that connection, so a run of requests for one file costs
// one frame, not a ticket per request. The OSS checks the connection's
// current ticket against each request's object and operation; a request
// before any ticket frame has none (TICKET_REQUIRED when the OSS checks).
//
// Ticket frame (48 bytes + text): magic u32 'SFBK' | 0 u8 | 0 u8 | textLen u16 | 40 zero bytes |
//                                 text = the ticket (ASCII)
// It has the fixed size of a request, like the hello (hello.ts), and gets no answer.
import { StripeError } from '../errors.js';
import { REQUEST_FIXED_BYTES } from './frame.js';

export const TICKET_FRAME_MAGIC = 0x4b424653; // 'SFBK'
/** Longest ticket text a frame carries (a ticket is about 150 bytes). */
export const TICKET_TEXT_BYTES_MAX = 1024;

export function isTicketFrame(fixed: Buffer): boolean {
  return fixed.length >= REQUEST_FIXED_BYTES && fixed.readUInt32LE(0) === TICKET_FRAME_MAGIC;
}

export function encodeTicketFrame(ticket: string): Buffer {
  const text = Buffer.from(ticket, 'latin1');
  if (text.length > TICKET_TEXT_BYTES_MAX) throw new StripeError('REQ_INVALID', 'bulk ticket: too long');
  const buf = Buffer.alloc(REQUEST_FIXED_BYTES + text.length);
  buf.writeUInt32LE(TICKET_FRAME_MAGIC, 0);
  buf.writeUInt16LE(text.length, 6);
  text.copy(buf, REQUEST_FIXED_BYTES);
  return buf;
}

/** Bytes of ticket text after the frame's fixed part. */
export function ticketTextBytes(fixed: Buffer): number {
  const bytes = fixed.readUInt16LE(6);
  if (bytes > TICKET_TEXT_BYTES_MAX) throw new StripeError('REQ_TOO_LARGE', 'bulk ticket: text too long');
  return bytes;
}

export function decodeTicketFrame(text: Buffer): string {
  return text.toString('latin1');
}
