"""Nightly reconciliation: re-drives breaks found against the bank statement."""
from .client import SettlementClient


def reconcile(breaks, client: SettlementClient):
    for brk in breaks:
        client.retry(brk["id"], brk["attempt"])


def run_operation(client: SettlementClient, operation: str, instruction_id: str):
    # Operations come from the ops console as strings.
    return getattr(client, operation)(instruction_id)


def main():
    client = SettlementClient("https://settlement.internal")
    reconcile([], client)
