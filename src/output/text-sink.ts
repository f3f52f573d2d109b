/** Where records go as text: a file we own, or stdout, which we write to but never end. */
export interface Sink {
  /**
   * A promise to wait on before writing more, when the stream cannot take more now (a slow disk
   * or reader slows the whole pipeline down); nothing when it can, so that the caller need not
   * wait a turn per record.
   */
  write(text: string): Promise<void> | undefined;
  close(): Promise<void>;
  /**
   * Rejects with the OutputError as soon as the stream fails; never resolves. A write's failure
   * (a reader that closed the pipe) shows on the stream a moment after the write returned, and the
   * next write may be minutes away at the service's pace: this lets the run stop sending at once.
   */
  readonly failed: Promise<never>;
  /**
   * The bytes the file has taken so far (written to it, not waiting in a buffer): what is in it
   * after a failure such as a full disk. Absent where the stream cannot tell (stdout).
   */
  readonly writtenBytes?: () => number;
}
