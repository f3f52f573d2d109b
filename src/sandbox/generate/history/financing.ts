import { addDays } from '../dates.js';
import { valueAt, type PropertyFacts } from '../facts.js';
import { publicRates } from '../mortgage-rates.js';
import { NOMINEE, lender, type Lender, type Party, type Parties } from '../people.js';
import { round, type Random } from '../random.js';
import { recordedAfter, recording, type Recording } from '../recording.js';
import { pickWeighted } from '../weighted.js';
import { dueDate, standing, type Loan } from './loans.js';
import type { Deed, Ownership } from './ownership.js';

export interface Lien extends Loan {
  recording: Recording;
  due: Date;
  eventType: 'lien_concurrent_1' | 'lien_concurrent_2' | 'lien_stand_alone';
  lienType: string;
  armIndex: string | null;
  lender: Lender;
  nominee: Party | null;
  borrowers: Parties;
  thirty: number;
  fifteen: number;
  /** hc_interest_rate: the rate the recorder's books state, where they state one. */
  statedRate: number;
  noticeIds: number[];
  /** When a refinance or a sale repaid it; null while it runs (or ran) to its due date. */
  repaid: Date | null;
}

/** Purchase loans: the lien type, its share of the price (or of the appraisal, when lower), and its terms in years. */
/** Purchase loans: the lien type, how common, its share of the price (or of the appraisal, when lower), its terms in years. */
const PURCHASE_LOANS: ReadonlyArray<{ type: string; weight: number; shares: readonly number[]; terms: readonly number[] }> = [
  { type: 'conventional', weight: 12, shares: [0.8, 0.8, 0.75, 0.7, 0.9, 0.95], terms: [30, 30, 30, 15, 20] },
  { type: 'fha', weight: 3, shares: [0.965], terms: [30] },
  { type: 'va', weight: 2, shares: [1, 0.95, 0.9], terms: [30] },
  { type: 'arm', weight: 2, shares: [0.8, 0.75], terms: [30] },
  { type: 'usda', weight: 1, shares: [1], terms: [30] },
];
const ARM_INDEXES_BEFORE_2021 = ['libor_6m', 'libor_1y', 'tbill_1y', 'cofi'];
const ARM_INDEXES_SINCE_2021 = ['tbill_1y', 'mta_12m', 'prime'];
/** Notices any lien may carry, and those only an ARM's calculation gives rise to. */
const NOTICES = [5, 28, 29, 30];
const ARM_NOTICES = [6, 8, 9, 12, 18, 19, 24, 27];

/** Loan amounts in whole thousands, rounded down: never above the share of the value they were drawn as. */
const thousands = (dollars: number) => Math.floor(dollars / 1000) * 1000;

type Deal = Pick<Lien, 'date' | 'recording' | 'amount' | 'years' | 'lienType' | 'eventType' | 'borrowers'>;

function lien(random: Random, deal: Deal): Lien {
  const { thirty, fifteen } = publicRates(deal.date);
  const rate = deal.years <= 15 ? fifteen : thirty;
  const isArm = deal.lienType === 'arm';
  const notices = Array.from({ length: random.int(0, 2) }, () => random.pick(isArm ? [...NOTICES, ...ARM_NOTICES] : NOTICES));
  return {
    ...deal,
    due: dueDate(deal.date, deal.years, random.int(1, 2)),
    armIndex: isArm ? random.pick(deal.date.getUTCFullYear() < 2021 ? ARM_INDEXES_BEFORE_2021 : ARM_INDEXES_SINCE_2021) : null,
    lender: lender(random),
    nominee: random.chance(0.4) ? NOMINEE : null,
    rate,
    thirty,
    fifteen,
    statedRate: random.chance(0.3) ? round(rate + random.float(-0.4, 0.4, 3), 3) : rate,
    noticeIds: [...new Set(notices)].sort((a, b) => a - b),
    repaid: null,
  };
}

/** The loans recorded with a purchase: most buyers borrow, some with a second loan towards the down payment. */
function purchaseLiens(random: Random, facts: PropertyFacts, purchase: Deed): Lien[] {
  if (!random.chance(0.8)) return [];
  const basis = Math.min(purchase.price, valueAt(facts, purchase.date));
  const loan = pickWeighted(random, PURCHASE_LOANS);
  const share = random.pick(loan.shares);
  const deal = { date: purchase.date, borrowers: purchase.buyers };
  const first = lien(random, {
    ...deal,
    recording: recordedAfter(purchase.recording, random),
    amount: thousands(basis * share),
    years: random.pick(loan.terms),
    lienType: loan.type,
    eventType: 'lien_concurrent_1',
  });
  if (share > 0.8 || !random.chance(0.15)) return [first];
  const second = lien(random, {
    ...deal,
    recording: recordedAfter(first.recording, random),
    amount: thousands(basis * random.pick([0.05, 0.1, 0.15])),
    years: random.pick([15, 30]),
    lienType: random.pick(['second_to_cover_down_payment', 'revolving_credit_line']),
    eventType: 'lien_concurrent_2',
  });
  return [first, second];
}

const runsAt = (date: Date) => (lien: Lien) => lien.repaid === null && lien.due > date;

type StandAlone = Omit<Deal, 'amount' | 'years' | 'lienType'>;

/** A refinance repays all that runs, with some cash out; with nothing running, it borrows against a house owned outright. */
function refinance(random: Random, deal: StandAlone, running: readonly Lien[], value: number): Lien {
  const owed = running.reduce((sum, loan) => sum + standing(loan, deal.date).outstanding, 0);
  const amount =
    running.length === 0 ? value * random.float(0.4, 0.7, 3) : Math.max(owed, Math.min(owed * random.float(1, 1.25, 3), value * 0.8));
  for (const loan of running) loan.repaid = deal.date;
  const lienType = running.length === 0 ? 'stand_alone_first' : 'stand_alone_refi';
  return lien(random, { ...deal, amount: thousands(amount), years: random.pick([30, 30, 15, 20]), lienType });
}

/** A second loan or credit line, if the amounts lent stay within 90% of the value. */
function secondLoan(random: Random, deal: StandAlone, running: readonly Lien[], value: number): Lien | null {
  const room = value * 0.9 - running.reduce((sum, loan) => sum + loan.amount, 0);
  const amount = Math.min(value * random.float(0.05, 0.2, 3), room);
  if (amount < 10_000) return null;
  const lienType = random.pick(['revolving_credit_line', 'stand_alone_second']);
  return lien(random, {
    ...deal,
    amount: thousands(amount),
    years: random.pick(lienType === 'revolving_credit_line' ? [10, 30] : [15, 30]),
    lienType,
  });
}

/**
 * What one owner borrowed: the purchase loans, then every few years perhaps a refinance (mostly when
 * public rates have fallen well below a running loan's) or a second loan. No loan takes the amounts
 * lent at the time above the value then. The liens of past owners were repaid when they sold: only
 * the current owner's run now.
 */
export function ownershipLiens(random: Random, facts: PropertyFacts, ownership: Ownership): Lien[] {
  const liens = purchaseLiens(random, facts, ownership.purchase);
  let date = addDays(ownership.purchase.date, Math.round(random.float(1, 6, 3) * 365));
  while (date < ownership.end) {
    const running = liens.filter(runsAt(date));
    const value = valueAt(facts, date);
    const { transfer, purchase } = ownership;
    const borrowers = transfer && transfer.date < date ? transfer.buyers : purchase.buyers;
    const deal = { date, recording: recording(random, date), borrowers, eventType: 'lien_stand_alone' as const };
    const cheaper = running.some((loan) => publicRates(date).thirty < loan.rate - 0.75);
    if (random.chance(cheaper ? 0.6 : 0.1)) liens.push(refinance(random, deal, running, value));
    else if (random.chance(0.2)) {
      const second = secondLoan(random, deal, running, value);
      if (second) liens.push(second);
    }
    date = addDays(date, Math.round(random.float(3, 9, 3) * 365));
  }
  return liens;
}
