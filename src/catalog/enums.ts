/** The spec's shared enumerations, verbatim. */
export const BLOCK_PROPERTY_TYPES = ['SFD', 'TH', 'CND', 'INC', 'MFH'] as const;

export const PROPERTY_TYPES = [
  'Single Family Residential', 'Townhouse', 'Condominium', 'Manufactured/Mobile Home', 'Multi-Family',
  'Land', 'Timeshare', 'Commercial', 'Other',
] as const;

export const ARM_INDEXES = [
  'cd_6m', 'cofi', 'libor_1m', 'libor_1y', 'libor_2m', 'libor_3m', 'libor_6m', 'mta_12m', 'prime',
  'tbill_10y', 'tbill_1y', 'tbill_3y', 'tbill_5y', 'tbill_6m',
] as const;

export const LENDER_TYPES = [
  'bank', 'credit_union', 'finance_company', 'government', 'individual_private_party', 'insurance',
  'internet', 'lending_institution', 'mortgage_company', 'other_company', 'reo_foreclosure_company',
  'seller', 'subprime_lender',
] as const;

export const LIEN_TYPES = [
  'arm', 'commercial', 'construction', 'conventional', 'fannie_mae_freddie_mac',
  'farmers_home_administration', 'fha', 'land_contract', 'open_end', 'revolving_credit_line',
  'second_to_cover_down_payment', 'seller_take_back', 'stand_alone_first', 'stand_alone_refi',
  'stand_alone_second', 'state_veterans', 'usda', 'va',
] as const;

export const SALE_LISTING_STATUSES = [
  'Coming Soon', 'Active', 'Closed', 'Sold', 'Pending', 'Contingent', 'Cancelled', 'Expired',
  'Withdrawn', 'Deleted', 'Leased', 'Not Listed',
] as const;

export const RENTAL_LISTING_STATUSES = SALE_LISTING_STATUSES.filter((status) => status !== 'Not Listed');

export const LEASE_PAYMENT_FREQUENCIES = ['Yearly', 'Semi-Annually', 'Monthly', 'Quarterly', 'Weekly', 'Daily'] as const;

export const GEO_PRECISIONS = ['rooftop', 'zip9', 'zip5', 'unknown'] as const;

export const LIEN_EVENT_TYPES = ['lien_concurrent_1', 'lien_concurrent_2', 'lien_stand_alone'] as const;

export const LTV_SOURCES = ['deed', 'mls', 'avm_block', 'avm_blockgroup', 'avm_zip', 'avm_msa', 'avm_state'] as const;

/** ltv_details notice ids, from the spec's notice table. */
export const NOTICE_IDS = [0, 1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 19, 20, 21, 22, 24, 25, 26, 27, 28, 29, 30] as const;

export const DETAILS = {
  basement: [
    'Basement (not specified)', 'Daylight, Full', 'Daylight, Partial', 'Full Basement',
    'Improved Basement (Finished)', 'No Basement', 'Partial Basement', 'Unfinished Basement',
  ],
  construction_type: [
    'Adobe', 'Brick', 'Concrete', 'Concrete Block', 'Dome', 'Frame', 'Heavy', 'Light', 'Log', 'Manufactured',
    'Other', 'Masonry', 'Metal', 'Steel', 'Stone', 'Tilt-up (pre-cast concrete)', 'Wood', 'Mixed',
  ],
  exterior_walls: [
    'Adobe', 'Asbestos shingle', 'Block', 'Brick', 'Brick veneer', 'Combination', 'Composition', 'Concrete',
    'Concrete Block', 'Glass', 'Log', 'Marble', 'Masonry', 'Metal', 'Other', 'Rock', 'Stone',
    'Shingle (Not Wood)', 'Siding (Alum/Vinyl)', 'Stucco', 'Tile', 'Tilt-up (pre-cast concrete)', 'Wood',
    'Wood Shingle', 'Wood Siding',
  ],
  garage_type_parking: [
    'Attached Garage', 'Built-in', 'Carport', 'Covered', 'Detached Garage', 'Garage', 'Mixed', 'None', 'Offsite',
    'Open', 'Parking Lot', 'Parking Structure', 'Paved/Surfaced', 'Pole', 'Ramp', 'Tuckunder',
    'Underground/Basement', 'Unimproved', 'Yes',
  ],
  heating: [
    'Baseboard', 'Central', 'Coal', 'Convection', 'Electric', 'Floor/Wall', 'Forced air unit', 'Gas',
    'Geo-thermal', 'Gravity', 'Heat Pump', 'Hot Water', 'None', 'Oil', 'Other', 'Partial', 'Propane', 'Radiant',
    'Solar', 'Space/Suspended', 'Steam', 'Vent', 'Wood Burning', 'Yes', 'Zone',
  ],
  roof_cover: [
    'Brick', 'Carpet', 'Ceramic', 'Combination', 'Concrete', 'Covered', 'Floating Floor/laminate (i.e. Pergo)',
    'Granite', 'Linoleum', 'Marble', 'Parquet', 'Slate', 'Stone', 'Terrazzo', 'Tile', 'Vinyl', 'Wood',
  ],
  roof_type: [
    'Bowstring Truss', 'Dome', 'Flat', 'Gable', 'Gable or Hip', 'Gambrel', 'Hip', 'Irr/Cathedral', 'Mansard',
    'Prestress Concrete', 'Reinforced Concrete', 'Rigid frm bar JT', 'Sawtooth', 'Shed', 'Steel frm/truss',
    'Wood Truss',
  ],
  sewer: ['Municipal', 'None', 'Storm', 'Septic', 'Yes'],
  style: [
    'A-Frame', 'Bungalow', 'Cape Cod', 'Colonial', 'Contemporary', 'Conventional', 'Cottage', 'Custom', 'Dome',
    'English', 'French Provincial', 'Georgian', 'High-rise', 'Historical Log Cabin/Rustic', 'Mansion',
    'Mediterranean', 'Modern', 'Other', 'Prefab,Modular', 'Raised Ranch', 'Ranch\\Rambler', 'Spanish',
    'Traditional', 'Tudor', 'Unfinished\\Under Construction', 'Victorian',
  ],
  water: ['Cistern', 'Municipal', 'None', 'Spring', 'Well'],
} as const;
