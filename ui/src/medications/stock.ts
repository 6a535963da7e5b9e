// Stock as people see it: never below zero. Older versions could leave a negative balance,
// and a dose larger than what was left still counts as taken; either way there is none.
import type { StockStatus, StockSummary } from '../api/medicationTypes';

export function onHand(quantity: number): number {
  return quantity > 0 ? quantity : 0;
}

/** The server's status, except that nothing left is always "Out of stock". */
export function shownStockStatus(stock: StockSummary): StockStatus {
  return stock.current_quantity <= 0 ? 'out_of_stock' : stock.stock_status;
}
