import * as vscode from 'vscode';

/**
 * A cancellable progress notification that opens only after `delayMs`, then
 * follows the work to its end. Cancelling it aborts the work.
 */
export class ProgressNotification {
  private timer: NodeJS.Timeout | undefined;
  private sink: vscode.Progress<{ message?: string; increment?: number }> | undefined;
  private finish!: () => void;
  private readonly finished = new Promise<void>((r) => (this.finish = r));
  private reported = 0;
  private last: { done: number; total: number } | undefined;

  constructor(
    private readonly title: string,
    /** What the notification's Cancel button does. */
    private readonly cancel: () => void,
    delayMs: number,
  ) {
    if (delayMs <= 0) this.open();
    else this.timer = setTimeout(() => this.open(), delayMs);
  }

  private open(): void {
    this.timer = undefined;
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: this.title, cancellable: true }, (progress, token) => {
      const sub = token.onCancellationRequested(() => this.cancel());
      this.sink = progress;
      if (this.last) this.report(this.last.done, this.last.total);
      return this.finished.finally(() => sub.dispose());
    });
  }

  report(done: number, total: number): void {
    this.last = { done, total };
    if (!this.sink || total <= 0) return;
    const pct = (done / total) * 100;
    this.sink.report({ increment: pct - this.reported, message: `${done}/${total} files` });
    this.reported = pct;
  }

  done(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.finish();
  }
}
