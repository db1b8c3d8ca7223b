// A webhook delivery as the run's receiver (src/runner/receiver.ts) records it and the checks read it back: one
// shape for both sides, below them.

/** One delivery attempt as the receiver got it (raw body kept byte for byte, for signature checks). */
export interface ReceivedDelivery {
  seq: number;
  received_at: string;
  headers: Record<string, string>;
  body: string;
  /** What the receiver answered. */
  answered: number;
  webhook_id?: string;
  event_type?: string;
  object_id?: string;
}

/** Metadata value that asks the receiver to fail the first attempt of a delivery (to observe retries). */
export const FAIL_FIRST_MARKER = 'fail-first';
