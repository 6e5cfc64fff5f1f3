import type { CampaignRow } from "@mailpiece/orders";
import type { CampaignRowIssue, CampaignRowReport } from "./types.ts";

/** The rows of a campaign with the problems planning adds; the rows given are never changed. */
export class RowStates {
  private readonly added = new Map<number, CampaignRowIssue[]>();
  private valid: number[] = [];

  constructor(readonly rows: readonly CampaignRow[]) {
    rows.forEach((row, index) => {
      if (row.status === "valid" && row.recipient !== undefined) this.valid.push(index);
    });
  }

  /** Indexes of the rows still valid, in file order. */
  validIndexes(): readonly number[] {
    if (this.valid.length > 0 && this.added.size > 0) {
      this.valid = this.valid.filter((index) => !this.added.has(index));
    }
    return this.valid;
  }

  validCount(): number {
    return this.validIndexes().length;
  }

  invalidate(index: number, error: CampaignRowIssue): void {
    const errors = this.added.get(index);
    if (errors === undefined) this.added.set(index, [error]);
    else errors.push(error);
  }

  reports(): CampaignRowReport[] {
    return this.rows.map((row, index) => {
      const added = this.added.get(index);
      if (added === undefined) {
        const status = row.status === "valid" && row.recipient !== undefined ? "valid" : "invalid";
        return { row_number: row.row_number, status, errors: [...row.errors] };
      }
      return { row_number: row.row_number, status: "invalid", errors: [...row.errors, ...added] };
    });
  }
}
