import { NOTICE_IDS } from '../../../catalog/enums.js';
import { DATA_DATE, addDays, addMonths, dayInPast, isoDay, monthsBetween, wholeYearsBetween } from '../dates.js';
import type { Random } from '../random.js';
import { round } from '../random.js';
import { stringFor } from '../vocabulary.js';
import { byDate, propertyOf, type Generated, type Rule } from './rule.js';

/** Public 30- and 15-year rates at origination, and the estimated rate for the lien's term. */
function rates(random: Random, years: number) {
  const thirty = random.float(2.8, 7.6, 2);
  const fifteen = round(thirty - 0.6, 2);
  return { thirty, fifteen, estimated: years <= 15 ? fifteen : thirty };
}

/** A lien record whose dates, term and rates agree: mortgage_years = whole years from record to due date. */
function lienRecords(maxYearsBack: number): Rule {
  return (records: Generated[], context) => {
    const { facts } = propertyOf(context);
    return records
      .map((record) => {
        const { random } = context;
        const recorded = dayInPast(random, maxYearsBack, 0.2);
        const years = random.pick([30, 30, 30, 15, 20, 10]);
        const due = addDays(addMonths(recorded, years * 12), -random.int(0, 20));
        const rate = rates(random, years);
        const isArm = record.lien_type === 'arm';
        return {
          ...record,
          amount: Math.round((facts.valueMean * random.float(0.1, 0.9, 3)) / 1000) * 1000,
          arm_index: isArm ? record.arm_index ?? 'libor_6m' : null,
          record_date: isoDay(recorded),
          due_date: isoDay(due),
          mortgage_years: wholeYearsBetween(recorded, due),
          thirty_yr: rate.thirty,
          fifteen_yr: rate.fifteen,
          interest_rate: rate.estimated,
          hc_interest_rate: random.chance(0.3) ? round(rate.estimated + random.float(-0.4, 0.4, 3), 3) : rate.estimated,
          heloc: record.lien_type === 'revolving_credit_line',
          stand_alone_refi: record.lien_type === 'stand_alone_refi',
        };
      })
      .sort(byDate('record_date', -1));
  };
}

/** Standard amortisation: the payment, and the principal still owed after `paidMonths`. */
function amortise(amount: number, annualRatePercent: number, months: number, paidMonths: number) {
  const rate = annualRatePercent / 1200;
  const growth = (1 + rate) ** months;
  const payment = (amount * rate * growth) / (growth - 1);
  const outstanding = (amount * (growth - (1 + rate) ** paidMonths)) / (growth - 1);
  return { payment: Math.round(payment), outstanding: Math.max(0, Math.round(outstanding)) };
}

const ltvDetails: Rule = (result, context) => {
  const { facts } = propertyOf(context);
  const { random } = context;
  const liens = (result.current_liens as Generated[])
    .map((lien, index) => {
      const recorded = dayInPast(random, 12, 0.3);
      const months = random.pick([360, 360, 180, 240]);
      const completed = Math.min(months, monthsBetween(recorded, DATA_DATE));
      const amount = Math.round((facts.valueMean * (index === 0 ? random.float(0.4, 0.85, 3) : random.float(0.05, 0.2, 3))) / 1000) * 1000;
      const rate = random.float(2.75, 7.5, 3);
      const { payment, outstanding } = amortise(amount, rate, months, completed);
      const isArm = lien.lien_type === 'arm';
      const notices = [...new Set(Array.from({ length: random.int(0, 2) }, () => random.pick(NOTICE_IDS)))].sort((a, b) => a - b);
      return {
        ...lien,
        arm_change_date: isArm ? isoDay(addMonths(recorded, 60)) : null,
        arm_index: isArm ? lien.arm_index ?? 'libor_6m' : null,
        is_arm: isArm,
        heloc: lien.lien_type === 'revolving_credit_line',
        record_date: isoDay(recorded),
        due_date: isoDay(addMonths(recorded, months)),
        interest_rate: rate,
        lien_amount: amount,
        lien_length_months: months,
        lien_months_completed_as_of_date: completed,
        monthly_payment: payment,
        notice_ids: notices,
        outstanding_principal: outstanding,
        principal_paid_as_of_date: amount - outstanding,
        stand_alone_refi: lien.lien_type === 'stand_alone_refi',
      };
    })
    .sort(byDate('due_date', 1));
  const value = {
    mean: facts.valueMean,
    upr: Math.round(facts.valueMean * (1 + facts.valueFsd)),
    lwr: Math.round(facts.valueMean * (1 - facts.valueFsd)),
  };
  const totalLien = liens.reduce((sum, lien) => sum + lien.outstanding_principal, 0);
  const inDefault = random.chance(0.04);
  return {
    as_of_month: result.as_of_month,
    fsd: facts.valueFsd,
    in_default: inDefault,
    last_default_date: inDefault ? isoDay(dayInPast(random, 2)) : null,
    ltv_lwr: round(totalLien / value.upr, 4),
    ltv_mean: round(totalLien / value.mean, 4),
    ltv_upr: round(totalLien / value.lwr, 4),
    property_value_lwr: value.lwr,
    property_value_mean: value.mean,
    property_value_upr: value.upr,
    total_equity_lwr: value.lwr - totalLien,
    total_equity_mean: value.mean - totalLien,
    total_equity_upr: value.upr - totalLien,
    total_lien: totalLien,
    total_monthly_payments: liens.reduce((sum, lien) => sum + lien.monthly_payment, 0),
    total_notice_ids: [...new Set(liens.flatMap((lien) => lien.notice_ids as number[]))].sort((a, b) => a - b),
    current_liens: liens,
  };
};

/** Deeds newest first; each sale priced at the property's value deflated to its date. */
const salesHistory: Rule = (deeds: Generated[], context) => {
  const { facts } = propertyOf(context);
  return deeds
    .map((deed) => {
      const recorded = dayInPast(context.random, 25, 0.2);
      const yearsAgo = monthsBetween(recorded, DATA_DATE) / 12;
      return {
        ...deed,
        grantor_1: stringFor('grantee_1', context.random),
        amount: Math.round(facts.valueMean / (1 + Math.max(facts.valueGrowth, 0.02)) ** yearsAgo / 100) * 100,
        record_date: isoDay(recorded),
      };
    })
    .sort(byDate('record_date', -1));
};

const nod: Rule = (result) => {
  const history = (result.default_history as Generated[])
    .map((notice) => ({ ...notice, event_type: 'default_notice' }))
    .sort(byDate('record_date', -1));
  return { last_default_date: history[0]?.record_date ?? null, default_history: history };
};

export const LIEN_RULES: Readonly<Record<string, Rule>> = {
  'property/mortgage_lien': lienRecords(12),
  'property/mortgage_lien_all': lienRecords(25),
  'property/ltv_details': ltvDetails,
  'property/sales_history': salesHistory,
  'property/nod': nod,
};
