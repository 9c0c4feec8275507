export class AuditLog {
  private readonly entries: string[] = [];

  record(event: string, instructionId: string): void {
    this.entries.push(`${new Date().toISOString()} ${event} ${instructionId}`);
  }
}
