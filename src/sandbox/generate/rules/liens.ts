import { isoDay, wholeYearsBetween } from '../dates.js';
import { RECORDS_FROM, type Deed, type Lien } from '../history/index.js';
import { historyOf, partyFields } from './history.js';
import type { Rule, RuleTable } from './rule.js';

/** A lien as mortgage_lien reports it: interest_rate is the public rate for its term (spec), mortgage_years whole years to the due date. */
function lienRecord(lien: Lien, parcel: { apn: unknown; fips: string }) {
  return {
    amount: lien.amount,
    apn: parcel.apn,
    arm_index: lien.armIndex,
    due_date: isoDay(lien.due),
    event_type: lien.eventType,
    fifteen_yr: lien.fifteen,
    thirty_yr: lien.thirty,
    fips: parcel.fips,
    ...partyFields('grantee', lien.borrowers),
    grantor_1: lien.lender.party.name,
    grantor_2: lien.nominee?.name ?? null,
    hc_interest_rate: lien.statedRate,
    interest_rate: lien.rate,
    heloc: lien.lienType === 'revolving_credit_line',
    lender_type: lien.lender.type,
    lien_type: lien.lienType,
    mortgage_years: wholeYearsBetween(lien.date, lien.due),
    ...lien.recording,
    stand_alone_refi: lien.lienType === 'stand_alone_refi',
  };
}

function deedRecord(deed: Deed, parcel: { apn: unknown; fips: string }) {
  const { record_book, record_date, record_doc, record_page } = deed.recording;
  return {
    amount: deed.price,
    apn: parcel.apn,
    event_type: deed.eventType,
    fips: parcel.fips,
    ...partyFields('grantee', deed.buyers),
    ...partyFields('grantor', deed.sellers),
    record_book,
    record_date,
    record_doc,
    record_page,
  };
}

/** mortgage_lien: the current owner's liens, since the last arm's-length sale; mortgage_lien_all: all on record. */
const liensSince =
  (current: boolean): Rule =>
  (_result, context) => {
    const { parcel, history } = historyOf(context);
    const from = current ? history.lastSale.date : RECORDS_FROM;
    return history.liens.filter((lien) => lien.date >= from).map((lien) => lienRecord(lien, parcel));
  };

const salesHistory: Rule = (_result, context) => {
  const { parcel, history } = historyOf(context);
  return history.deeds.filter((deed) => deed.date >= RECORDS_FROM).map((deed) => deedRecord(deed, parcel));
};

const nod: Rule = (_result, context) => {
  const { parcel, history } = historyOf(context);
  const notices = history.defaults.map(({ record_book, record_date, record_doc, record_page }) => ({
    apn: parcel.apn,
    event_type: 'default_notice',
    fips: parcel.fips,
    record_book,
    record_date,
    record_doc,
    record_page,
  }));
  return { last_default_date: notices[0]?.record_date ?? null, default_history: notices };
};

export const LIEN_RULES: RuleTable = {
  'property/mortgage_lien': liensSince(true),
  'property/mortgage_lien_all': liensSince(false),
  'property/sales_history': salesHistory,
  'property/nod': nod,
};
