import { DATA_DATE, addMonths, isoDay } from '../dates.js';
import { valueAt } from '../facts.js';
import { RECORDS_FROM, standing, type Lien } from '../history/index.js';
import { round } from '../random.js';
import { historyOf, partyFields } from './history.js';
import { propertyOf, type Rule, type RuleTable } from './rule.js';

/** An ARM's rate starts to adjust after its five fixed years. */
const ARM_FIXED_MONTHS = 60;

function currentLien(lien: Lien) {
  const { payment, paidMonths, outstanding } = standing(lien, DATA_DATE);
  const isArm = lien.lienType === 'arm';
  return {
    arm_change_date: isArm ? isoDay(addMonths(lien.date, ARM_FIXED_MONTHS)) : null,
    arm_index: lien.armIndex,
    due_date: isoDay(lien.due),
    ...partyFields('grantee', lien.borrowers),
    grantor_1: lien.lender.party.name,
    grantor_2: lien.nominee?.name ?? null,
    heloc: lien.lienType === 'revolving_credit_line',
    interest_rate: lien.rate,
    is_arm: isArm,
    lender_type: lien.lender.type,
    lien_amount: lien.amount,
    lien_length_months: lien.years * 12,
    lien_months_completed_as_of_date: paidMonths,
    lien_type: lien.lienType,
    monthly_payment: payment,
    notice_ids: lien.noticeIds,
    outstanding_principal: outstanding,
    principal_paid_as_of_date: lien.amount - outstanding,
    record_date: lien.recording.record_date,
    stand_alone_refi: lien.lienType === 'stand_alone_refi',
  };
}

/** The current owner's running liens, soonest due first, against the value band; defaults as nod reports them. */
const ltvDetails: Rule = (generated, context) => {
  const result = generated();
  const { facts } = propertyOf(context);
  const { history } = historyOf(context);
  const liens = history.currentLiens.map(currentLien).sort((a, b) => a.due_date.localeCompare(b.due_date));
  const value = {
    mean: facts.valueMean,
    upr: Math.round(facts.valueMean * (1 + facts.valueFsd)),
    lwr: Math.round(facts.valueMean * (1 - facts.valueFsd)),
  };
  const totalLien = liens.reduce((sum, lien) => sum + lien.outstanding_principal, 0);
  return {
    as_of_month: result.as_of_month,
    fsd: facts.valueFsd,
    in_default: history.defaults.length > 0,
    last_default_date: history.defaults[0]?.record_date ?? null,
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
    total_notice_ids: [...new Set(liens.flatMap((lien) => lien.notice_ids))].sort((a, b) => a - b),
    current_liens: liens,
  };
};

const AVM_SOURCES = ['avm_block', 'avm_blockgroup', 'avm_zip', 'avm_msa', 'avm_state'];

/**
 * The loans recorded with the current owner's purchase against its price; for a purchase older than
 * the deed records, against the value then, time-adjusted. A cash purchase has ltv 0.
 */
const ltvOrigination: Rule = (_generated, context) => {
  const { facts } = propertyOf(context);
  const { history } = historyOf(context);
  const sale = history.lastSale;
  const lien = history.liens
    .filter((loan) => loan.date.getTime() === sale.date.getTime() && loan.eventType !== 'lien_stand_alone')
    .reduce((sum, loan) => sum + loan.amount, 0);
  const fromDeed = sale.date >= RECORDS_FROM;
  const value = fromDeed ? sale.price : Math.round(valueAt(facts, sale.date) / 1000) * 1000;
  return { ltv: round(lien / value, 4), lien, value, source: fromDeed ? 'deed' : context.random.pick(AVM_SOURCES) };
};

export const LTV_RULES: RuleTable = {
  'property/ltv_details': ltvDetails,
  'property/ltv_origination': ltvOrigination,
};
