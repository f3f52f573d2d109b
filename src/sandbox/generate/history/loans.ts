import { addMonths, monthsBetween } from '../dates.js';

/** What a lien's borrowers repay: enough of a loan to amortise it. */
export interface Loan {
  date: Date;
  amount: number;
  /** Annual rate, in percent. */
  rate: number;
  years: number;
}

/** The payment date of the last instalment: the first of the month after the term's anniversary, or the one after. */
export const dueDate = (recorded: Date, years: number, extraMonths: number) => {
  const due = addMonths(recorded, years * 12 + extraMonths);
  return new Date(Date.UTC(due.getUTCFullYear(), due.getUTCMonth(), 1));
};

/** Standard amortisation: the monthly payment, the months paid and the principal still owed at `date`. */
export function standing(loan: Loan, date: Date) {
  const months = loan.years * 12;
  const paidMonths = Math.max(0, Math.min(months, monthsBetween(loan.date, date)));
  const rate = loan.rate / 1200;
  const growth = (1 + rate) ** months;
  const payment = (loan.amount * rate * growth) / (growth - 1);
  const outstanding = (loan.amount * (growth - (1 + rate) ** paidMonths)) / (growth - 1);
  return { payment: Math.round(payment), paidMonths, outstanding: Math.max(0, Math.round(outstanding)) };
}
