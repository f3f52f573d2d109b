// Generated from the catalog (src/catalog/) by test/generate/result-types.ts: do not edit.
// Regenerate: npm run generate

/**
 * One endpoint's section of a chunk: api_code 0 with the result, or 204 (no content, not charged) without one.
 * Other codes are errors, never handed over as sections. api_code_description (`ok`, `no content`) is not relied on.
 */
export type Section<Result> =
  { api_code: 0; api_code_description: string; result: Result } | { api_code: 204; api_code_description: string; result?: null };

/** Each catalog endpoint's result, by endpoint name (component_mget has no section of its own). */
export interface ResultTypes {
  /** Resolve an address: address_info with resolution status */
  'property/geocode': boolean;
  /** Census geography: block, block group, tract, county, MSA */
  'property/census': {
    block_group: string;
    block: string;
    county_name: string;
    fips: string;
    msa_name: string | null;
    msa: string | null;
    tract: string;
    tribal_land: boolean;
  };
  /** Assessor public-record attributes and the latest assessment */
  'property/details': {
    property: {
      air_conditioning: 'yes' | 'no';
      attic: boolean;
      basement:
        | 'Basement (not specified)'
        | 'Daylight, Full'
        | 'Daylight, Partial'
        | 'Full Basement'
        | 'Improved Basement (Finished)'
        | 'No Basement'
        | 'Partial Basement'
        | 'Unfinished Basement';
      building_area_sq_ft: number;
      building_condition_score: number;
      building_quality_score: number;
      construction_type:
        | 'Adobe'
        | 'Brick'
        | 'Concrete'
        | 'Concrete Block'
        | 'Dome'
        | 'Frame'
        | 'Heavy'
        | 'Light'
        | 'Log'
        | 'Manufactured'
        | 'Other'
        | 'Masonry'
        | 'Metal'
        | 'Steel'
        | 'Stone'
        | 'Tilt-up (pre-cast concrete)'
        | 'Wood'
        | 'Mixed';
      exterior_walls:
        | 'Adobe'
        | 'Asbestos shingle'
        | 'Block'
        | 'Brick'
        | 'Brick veneer'
        | 'Combination'
        | 'Composition'
        | 'Concrete'
        | 'Concrete Block'
        | 'Glass'
        | 'Log'
        | 'Marble'
        | 'Masonry'
        | 'Metal'
        | 'Other'
        | 'Rock'
        | 'Stone'
        | 'Shingle (Not Wood)'
        | 'Siding (Alum/Vinyl)'
        | 'Stucco'
        | 'Tile'
        | 'Tilt-up (pre-cast concrete)'
        | 'Wood'
        | 'Wood Shingle'
        | 'Wood Siding';
      fireplace: boolean;
      full_bath_count: number;
      garage_parking_of_cars: number;
      garage_type_parking:
        | 'Attached Garage'
        | 'Built-in'
        | 'Carport'
        | 'Covered'
        | 'Detached Garage'
        | 'Garage'
        | 'Mixed'
        | 'None'
        | 'Offsite'
        | 'Open'
        | 'Parking Lot'
        | 'Parking Structure'
        | 'Paved/Surfaced'
        | 'Pole'
        | 'Ramp'
        | 'Tuckunder'
        | 'Underground/Basement'
        | 'Unimproved'
        | 'Yes';
      heating:
        | 'Baseboard'
        | 'Central'
        | 'Coal'
        | 'Convection'
        | 'Electric'
        | 'Floor/Wall'
        | 'Forced air unit'
        | 'Gas'
        | 'Geo-thermal'
        | 'Gravity'
        | 'Heat Pump'
        | 'Hot Water'
        | 'None'
        | 'Oil'
        | 'Other'
        | 'Partial'
        | 'Propane'
        | 'Radiant'
        | 'Solar'
        | 'Space/Suspended'
        | 'Steam'
        | 'Vent'
        | 'Wood Burning'
        | 'Yes'
        | 'Zone';
      heating_fuel_type: string | null;
      no_of_buildings: number;
      no_of_stories: number;
      number_of_bedrooms: number;
      number_of_units: number;
      partial_bath_count: number;
      pool: boolean;
      property_type: PropertyType;
      roof_cover:
        | 'Brick'
        | 'Carpet'
        | 'Ceramic'
        | 'Combination'
        | 'Concrete'
        | 'Covered'
        | 'Floating Floor/laminate (i.e. Pergo)'
        | 'Granite'
        | 'Linoleum'
        | 'Marble'
        | 'Parquet'
        | 'Slate'
        | 'Stone'
        | 'Terrazzo'
        | 'Tile'
        | 'Vinyl'
        | 'Wood';
      roof_type:
        | 'Bowstring Truss'
        | 'Dome'
        | 'Flat'
        | 'Gable'
        | 'Gable or Hip'
        | 'Gambrel'
        | 'Hip'
        | 'Irr/Cathedral'
        | 'Mansard'
        | 'Prestress Concrete'
        | 'Reinforced Concrete'
        | 'Rigid frm bar JT'
        | 'Sawtooth'
        | 'Shed'
        | 'Steel frm/truss'
        | 'Wood Truss';
      sewer: 'Municipal' | 'None' | 'Storm' | 'Septic' | 'Yes';
      site_area_acres: number;
      style:
        | 'A-Frame'
        | 'Bungalow'
        | 'Cape Cod'
        | 'Colonial'
        | 'Contemporary'
        | 'Conventional'
        | 'Cottage'
        | 'Custom'
        | 'Dome'
        | 'English'
        | 'French Provincial'
        | 'Georgian'
        | 'High-rise'
        | 'Historical Log Cabin/Rustic'
        | 'Mansion'
        | 'Mediterranean'
        | 'Modern'
        | 'Other'
        | 'Prefab,Modular'
        | 'Raised Ranch'
        | 'Ranch\\Rambler'
        | 'Spanish'
        | 'Traditional'
        | 'Tudor'
        | 'Unfinished\\Under Construction'
        | 'Victorian';
      subdivision: string;
      total_bath_count: number;
      total_number_of_rooms: number;
      water: 'Cistern' | 'Municipal' | 'None' | 'Spring' | 'Well';
      year_built: number;
      zoning: string;
    };
    assessment: {
      apn: string;
      assessment_year: number;
      tax_year: number;
      tax_amount: number;
      total_assessed_value: number;
    };
  };
  /** Attributes from listing data and from public records, side by side */
  'property/details_enhanced': {
    listing_record: {
      building_area_sq_ft: number;
      has_basement: boolean | null;
      has_pool: boolean | null;
      number_of_bathrooms: number;
      number_of_bedrooms: number;
      parking_carport_count: number | null;
      parking_driveway_count: number | null;
      parking_garage_count: number | null;
      property_type: PropertyType;
      room_types: string[] | null;
      site_area_acres: number;
      stories_count: number;
      year_built: number;
      assessment: {
        apn: string;
        assessment_year: number;
        owner_name: string;
        tax_amount: number;
        tax_year: number;
        total_assessed_value: number;
      } | null;
      sale: {
        list_date: string;
        sale_date: string;
        list_price: number;
        sale_price: number;
        is_reo: boolean;
        is_distressed: boolean;
      };
    };
    public_record: ResultTypes['property/details_enhanced']['listing_record'];
  };
  /** Open federal disaster declarations for the county */
  'property/fema_disaster_area': {
    data_current_to: string;
    in_disaster_area: boolean;
    details: {
      declared_date: string;
      start_date: string;
      end_date: string | null;
      fema_disaster_num: number;
      fips: string;
      title: string;
      type: string;
    }[];
  };
  /** Flood zone, risk level and map panel */
  'property/flood': {
    effective_date: string;
    flood_risk: string;
    zone: string;
    panel_number: string;
  };
  /** Automated land value with its confidence band */
  'property/land_value': {
    land_value: {
      value_mean: number;
      value_upr: number;
      value_lwr: number;
      fsd: number;
    };
  };
  /** Latest sale listing status */
  'property/listing_status': {
    listing_date: string;
    listing_price: number;
    has_price_considerations: true | null;
    listing_status_date: string;
    listing_status: SaleListingStatus;
  };
  /** Active liens itemized, with estimated loan-to-value and equity */
  'property/ltv_details': {
    as_of_month: string;
    fsd: number;
    in_default: boolean;
    last_default_date: string | null;
    ltv_lwr: number;
    ltv_mean: number;
    ltv_upr: number;
    property_value_lwr: number;
    property_value_mean: number;
    property_value_upr: number;
    total_equity_lwr: number;
    total_equity_mean: number;
    total_equity_upr: number;
    total_lien: number;
    total_monthly_payments: number;
    total_notice_ids: number[];
    current_liens: {
      arm_change_date: string | null;
      arm_index: ArmIndex | null;
      due_date: string;
      grantee_1: string | null;
      grantee_1_forenames: string | null;
      grantee_2: string | null;
      grantee_2_forenames: string | null;
      grantor_1: string | null;
      grantor_2: string | null;
      heloc: boolean;
      interest_rate: number;
      is_arm: boolean;
      lender_type: LenderType;
      lien_amount: number;
      lien_length_months: number;
      lien_months_completed_as_of_date: number;
      lien_type: LienType;
      monthly_payment: number;
      notice_ids: number[];
      outstanding_principal: number;
      principal_paid_as_of_date: number;
      record_date: string;
      stand_alone_refi: boolean;
    }[];
  };
  /** Loan-to-value at origination of the primary loans */
  'property/ltv_origination': {
    ltv: number;
    lien: number;
    value: number | null;
    source: LtvSource;
  };
  /** Liens since the last arm's-length transaction (current owner) */
  'property/mortgage_lien': {
    amount: number;
    apn: string;
    arm_index: ArmIndex | null;
    due_date: string;
    event_type: LienEventType;
    fifteen_yr: number;
    thirty_yr: number;
    fips: string;
    grantee_1: string | null;
    grantee_1_forenames: string | null;
    grantee_2: string | null;
    grantee_2_forenames: string | null;
    grantor_1: string | null;
    grantor_2: string | null;
    hc_interest_rate: number;
    interest_rate: number;
    heloc: boolean;
    lender_type: LenderType;
    lien_type: LienType;
    mortgage_years: number;
    record_book: string;
    record_page: string;
    record_doc: string;
    record_date: string;
    stand_alone_refi: boolean;
  }[];
  /** All available liens, including prior owners */
  'property/mortgage_lien_all': NonNullable<ResultTypes['property/mortgage_lien']>[number][];
  /** Notices of default since the last sale, not rescinded */
  'property/nod': {
    last_default_date: string | null;
    default_history: {
      apn: string;
      event_type: string;
      fips: string;
      record_book: string;
      record_date: string;
      record_doc: string;
      record_page: string;
    }[];
  };
  /** Whether an active sale listing exists */
  'property/on_market': {
    currently_listed: boolean;
    listing_date: string;
    listing_price: number;
    has_price_considerations: true | null;
  };
  /** Whether the tax mailing address is the property itself */
  'property/owner_occupied': {
    owner_occupied: boolean;
  };
  /** Latest rental listing status */
  'property/rental_listing_status': {
    listing_status: RentalListingStatus;
    listing_date: string;
    listing_price: number;
    has_price_considerations: true | null;
    lease_payment_frequency: LeasePaymentFrequency;
  };
  /** Whether an active rental listing exists */
  'property/rental_on_market': {
    currently_listed: boolean;
    listing_date: string;
    listing_price: number;
    has_price_considerations: true | null;
    lease_payment_frequency: LeasePaymentFrequency;
  };
  /** Monthly rental valuation with its confidence band */
  'property/rental_value': {
    price_mean: number;
    price_upr: number;
    price_lwr: number;
    fsd: number;
  };
  /** ZIP-level rent forecast at 3, 6 and 12 months */
  'property/rental_value_forecast': {
    month_03: {
      value: number;
    };
    month_06: {
      value: number;
    };
    month_12: {
      value: number;
    };
  };
  /** Rental value's position within the block's distribution */
  'property/rental_value_within_block': {
    property_type: BlockPropertyType;
    service_value_percentile_range: {
      name: string;
      low: number | null;
      high: number | null;
    };
    service_value_sqft_percentile_range: ResultTypes['property/rental_value_within_block']['service_value_percentile_range'];
    client_value_percentile_range: {
      name: string;
      low: number | null;
      high: number | null;
    } | null;
    client_value_sqft_percentile_range: {
      name: string;
      low: number | null;
      high: number | null;
    } | null;
  };
  /** Gross rental yield: monthly rent x 12 / value */
  'property/rental_yield': {
    gross_yield: number;
    value: number;
    monthly_rent: number;
  };
  /** Sales and transfers over the past 25 years */
  'property/sales_history': {
    amount: number;
    apn: string;
    event_type: string;
    fips: string;
    grantee_1: string | null;
    grantee_1_forenames: string | null;
    grantee_2: string | null;
    grantee_2_forenames: string | null;
    grantor_1: string | null;
    grantor_1_forenames: string | null;
    grantor_2: string | null;
    grantor_2_forenames: string | null;
    record_book: string;
    record_date: string;
    record_doc: string;
    record_page: string;
  }[];
  /** Nearby elementary, middle and high schools with scores */
  'property/school': {
    school: {
      elementary: {
        city: string;
        state: string;
        name: string;
        zipcode: string;
        phone: string;
        address: string;
        verified_school_boundaries: boolean | null;
        distance_miles: number;
        score: number;
        education_level: ('elementary' | 'middle' | 'high')[];
        assessment_year: number;
      }[];
      middle: {
        city: string;
        state: string;
        name: string;
        zipcode: string;
        phone: string;
        address: string;
        verified_school_boundaries: boolean | null;
        distance_miles: number;
        score: number;
        education_level: ('elementary' | 'middle' | 'high')[];
        assessment_year: number;
      }[];
      high: {
        city: string;
        state: string;
        name: string;
        zipcode: string;
        phone: string;
        address: string;
        verified_school_boundaries: boolean | null;
        distance_miles: number;
        score: number;
        education_level: ('elementary' | 'middle' | 'high')[];
        assessment_year: number;
      }[];
    };
  };
  /** Automated sale value with its confidence band */
  'property/value': {
    value: ResultTypes['property/rental_value'];
  };
  /** Value after adding beds, baths, square feet or a pool */
  'property/value_details_adjusted': {
    adjusted_value_to: number;
    adjusted_beds_to?: number;
    adjusted_baths_to?: number;
    adjusted_sqft_to?: number;
    adjusted_pools_to?: number;
  };
  /** ZIP-level value forecast over 3 years */
  'property/value_forecast': {
    month_03: {
      value: number;
    };
    month_06: {
      value: number;
    };
    month_12: {
      value: number;
    };
    month_18: {
      value: number;
    };
    month_24: {
      value: number;
    };
    month_30: {
      value: number;
    };
    month_36: {
      value: number;
    };
  };
  /** A value moved to another month with price indexes */
  'property/value_hpi_adjusted': {
    client_value_adjusted: {
      from_value: number;
      from_date: string;
      to_date: string;
      adjusted_by: {
        block: number;
        blockgroup: number;
        zip: number;
        msa: number;
        state: number;
      };
    } | null;
    service_value_adjusted: {
      from_value: number;
      from_date: string;
      to_date: string;
      adjusted_by: NonNullable<ResultTypes['property/value_hpi_adjusted']['client_value_adjusted']>['adjusted_by'];
    };
  };
  /** Sale value's position within the block's distribution */
  'property/value_within_block': ResultTypes['property/rental_value_within_block'];
  /** Active liens itemized, with estimated loan-to-value and equity (beyond the spec: property/ltv_details by another name) */
  'property/ltv': ResultTypes['property/ltv_details'];
  /** Reported incidents near the block in the last two years (by property) */
  'property/block_crime': ResultTypes['block/crime'];
  /** Earthquake ground acceleration (10% in 50 years) and percentiles (by property) */
  'property/block_hazard_earthquake': ResultTypes['block/hazard_earthquake'];
  /** Accumulated hail energy near the block (by property) */
  'property/block_hazard_hail': ResultTypes['block/hazard_hail'];
  /** Accumulated hurricane energy near the block (through 2016) (by property) */
  'property/block_hazard_hurricane': ResultTypes['block/hazard_hurricane'];
  /** Accumulated tornado energy near the block (by property) */
  'property/block_hazard_tornado': ResultTypes['block/hazard_tornado'];
  /** Accumulated wind energy near the block (by property) */
  'property/block_hazard_wind': ResultTypes['block/hazard_wind'];
  /** Gross rental yield aggregated over the block (by property) */
  'property/block_hcri': ResultTypes['block/hcri'];
  /** Distribution of rental values across the block (by property) */
  'property/block_rental_value_distribution': ResultTypes['block/rental_value_distribution'];
  /** Superfund cleanup sites on, within 1 and within 4 miles of the block (by property) */
  'property/block_superfund': ResultTypes['block/superfund'];
  /** Distribution of sale values across the block (by property) */
  'property/block_value_distribution': ResultTypes['block/value_distribution'];
  /** Homes in the block by number of bathrooms (beyond the spec) (by property) */
  'property/block_histogram_baths': ResultTypes['block/histogram_baths'];
  /** Homes in the block by number of bedrooms (beyond the spec) (by property) */
  'property/block_histogram_beds': ResultTypes['block/histogram_beds'];
  /** Homes in the block by building area (sq ft) (beyond the spec) (by property) */
  'property/block_histogram_building_area': ResultTypes['block/histogram_building_area'];
  /** Homes in the block by sale value (beyond the spec) (by property) */
  'property/block_histogram_value': ResultTypes['block/histogram_value'];
  /** Homes in the block by sale value per sq ft (beyond the spec) (by property) */
  'property/block_histogram_value_sqft': ResultTypes['block/histogram_value_sqft'];
  /** Monthly typical value of the block's homes, a year back and forward (beyond the spec) (by property) */
  'property/block_value_ts': ResultTypes['block/value_ts'];
  /** Monthly typical value of the block's homes, a year forward (beyond the spec) (by property) */
  'property/block_value_ts_forecast': ResultTypes['block/value_ts_forecast'];
  /** Monthly typical value of the block's homes, a year back (beyond the spec) (by property) */
  'property/block_value_ts_historical': ResultTypes['block/value_ts_historical'];
  /** Market figures of the ZIP for single- and multi-family homes (beyond the spec) (by property) */
  'property/zip_details': ResultTypes['zip/details'];
  /** Gross rental yield aggregated over the ZIP (beyond the spec) (by property) */
  'property/zip_hcri': ResultTypes['zip/hcri'];
  /** ZIP home price index forecast at 3 to 36 months (beyond the spec) (by property) */
  'property/zip_hpi_forecast': ResultTypes['zip/hpi_forecast'];
  /** ZIP home price index returns and growth over 1, 5 and 10 years (beyond the spec) (by property) */
  'property/zip_hpi_historical': ResultTypes['zip/hpi_historical'];
  /** Monthly ZIP home price index, a year back and forward (beyond the spec) (by property) */
  'property/zip_hpi_ts': ResultTypes['zip/hpi_ts'];
  /** Monthly ZIP home price index, a year forward (beyond the spec) (by property) */
  'property/zip_hpi_ts_forecast': ResultTypes['zip/hpi_ts_forecast'];
  /** Monthly ZIP home price index, a year back (beyond the spec) (by property) */
  'property/zip_hpi_ts_historical': ResultTypes['zip/hpi_ts_historical'];
  /** How much the ZIP home price index moves (beyond the spec) (by property) */
  'property/zip_volatility': ResultTypes['zip/volatility'];
  /** Name and home price index returns of the metro area (beyond the spec) (by property) */
  'property/msa_details': ResultTypes['msa/details'];
  /** Monthly metro home price index, a year back and forward (beyond the spec) (by property) */
  'property/msa_hpi_ts': ResultTypes['msa/hpi_ts'];
  /** Monthly metro home price index, a year forward (beyond the spec) (by property) */
  'property/msa_hpi_ts_forecast': ResultTypes['msa/hpi_ts_forecast'];
  /** Monthly metro home price index, a year back (beyond the spec) (by property) */
  'property/msa_hpi_ts_historical': ResultTypes['msa/hpi_ts_historical'];
  /** Reported incidents near the block in the last two years */
  'block/crime': {
    all: {
      incidents: number;
      county_percentile: number;
      nation_percentile: number;
    };
    property: ResultTypes['block/crime']['all'];
    violent: ResultTypes['block/crime']['all'];
    other: ResultTypes['block/crime']['all'];
  };
  /** Earthquake ground acceleration (10% in 50 years) and percentiles */
  'block/hazard_earthquake': {
    max_percent_g: number;
    county_percentile: number;
    nation_percentile: number;
  };
  /** Accumulated hail energy near the block */
  'block/hazard_hail': {
    accumulated_energy: number;
    county_percentile: number;
    nation_percentile: number;
  };
  /** Accumulated hurricane energy near the block (through 2016) */
  'block/hazard_hurricane': ResultTypes['block/hazard_hail'];
  /** Accumulated tornado energy near the block */
  'block/hazard_tornado': ResultTypes['block/hazard_hail'];
  /** Accumulated wind energy near the block */
  'block/hazard_wind': ResultTypes['block/hazard_hail'];
  /** Gross rental yield aggregated over the block */
  'block/hcri': {
    property_type: BlockPropertyType;
    gross_yield_count: number;
    gross_yield_average: number;
    gross_yield_median: number;
  };
  /** Distribution of rental values across the block */
  'block/rental_value_distribution': {
    property_type: BlockPropertyType;
    value_5: number;
    value_25: number;
    value_50: number;
    value_75: number;
    value_95: number;
    value_min: number;
    value_max: number;
    value_mean: number;
    value_sd: number;
    value_count: number;
    value_sqft_5: number;
    value_sqft_25: number;
    value_sqft_50: number;
    value_sqft_75: number;
    value_sqft_95: number;
    value_sqft_min: number;
    value_sqft_max: number;
    value_sqft_mean: number;
    value_sqft_sd: number;
    value_sqft_count: number;
  };
  /** Superfund cleanup sites on, within 1 and within 4 miles of the block */
  'block/superfund': {
    within_miles_0: {
      count: number;
      detail: {
        site_name: string;
        epa_site_id: string;
        link: string;
        npl_status: string;
        updated_date: string;
      }[];
    };
    within_miles_1: {
      count: number;
      detail: NonNullable<ResultTypes['block/superfund']['within_miles_0']['detail']>[number][];
    };
    within_miles_4: {
      count: number;
      detail: NonNullable<ResultTypes['block/superfund']['within_miles_0']['detail']>[number][];
    };
  };
  /** Distribution of sale values across the block */
  'block/value_distribution': ResultTypes['block/rental_value_distribution'];
  /** Homes in the block by number of bathrooms (beyond the spec) */
  'block/histogram_baths': {
    property_type: BlockPropertyType;
    bins: {
      bin_lower: number;
      bin_upper: number;
      count: number;
    }[];
  };
  /** Homes in the block by number of bedrooms (beyond the spec) */
  'block/histogram_beds': {
    property_type: BlockPropertyType;
    bins: NonNullable<ResultTypes['block/histogram_baths']['bins']>[number][];
  };
  /** Homes in the block by building area (sq ft) (beyond the spec) */
  'block/histogram_building_area': ResultTypes['block/histogram_beds'];
  /** Homes in the block by sale value (beyond the spec) */
  'block/histogram_value': ResultTypes['block/histogram_beds'];
  /** Homes in the block by sale value per sq ft (beyond the spec) */
  'block/histogram_value_sqft': ResultTypes['block/histogram_beds'];
  /** Monthly typical value of the block's homes, a year back and forward (beyond the spec) */
  'block/value_ts': {
    time_series: {
      month: string;
      value: number;
    }[];
  };
  /** Monthly typical value of the block's homes, a year forward (beyond the spec) */
  'block/value_ts_forecast': ResultTypes['block/value_ts'];
  /** Monthly typical value of the block's homes, a year back (beyond the spec) */
  'block/value_ts_historical': ResultTypes['block/value_ts'];
  /** Market figures of the ZIP for single- and multi-family homes (beyond the spec) */
  'zip/details': {
    single_family: {
      inventory_total: number;
      price_median: number;
      estimated_sales_total: number;
      days_on_market_median: number;
      months_of_inventory_median: number;
    };
    multi_family: ResultTypes['zip/details']['single_family'];
  };
  /** Gross rental yield aggregated over the ZIP (beyond the spec) */
  'zip/hcri': ResultTypes['block/hcri'];
  /** ZIP home price index forecast at 3 to 36 months (beyond the spec) */
  'zip/hpi_forecast': ResultTypes['property/value_forecast'];
  /** ZIP home price index returns and growth over 1, 5 and 10 years (beyond the spec) */
  'zip/hpi_historical': {
    returns_1yr: number;
    returns_5yr: number;
    returns_10yr: number;
    cagr_1yr: number;
    cagr_5yr: number;
    cagr_10yr: number;
  };
  /** Monthly ZIP home price index, a year back and forward (beyond the spec) */
  'zip/hpi_ts': ResultTypes['block/value_ts'];
  /** Monthly ZIP home price index, a year forward (beyond the spec) */
  'zip/hpi_ts_forecast': ResultTypes['block/value_ts'];
  /** Monthly ZIP home price index, a year back (beyond the spec) */
  'zip/hpi_ts_historical': ResultTypes['block/value_ts'];
  /** How much the ZIP home price index moves (beyond the spec) */
  'zip/volatility': {
    beta: number;
    std_deviation: number;
    risk_grade: number;
  };
  /** Name and home price index returns of the metro area (beyond the spec) */
  'msa/details': {
    msa_name: string;
    returns_1yr: number;
    returns_5yr: number;
    returns_10yr: number;
    cagr_1yr: number;
    cagr_5yr: number;
    cagr_10yr: number;
  };
  /** Monthly metro home price index, a year back and forward (beyond the spec) */
  'msa/hpi_ts': ResultTypes['block/value_ts'];
  /** Monthly metro home price index, a year forward (beyond the spec) */
  'msa/hpi_ts_forecast': ResultTypes['block/value_ts'];
  /** Monthly metro home price index, a year back (beyond the spec) */
  'msa/hpi_ts_historical': ResultTypes['block/value_ts'];
}

export type EndpointName = keyof ResultTypes;

/** The chunk members that describe the item itself. */
export interface InfoTypes {
  address_info:
    | {
        address_full: string;
        slug: string;
        address: string;
        unit: string | null;
        zipcode: string;
        zipcode_plus4: string;
        block_id: string;
        blockgroup_id: string;
        county_fips: string;
        metrodiv: string | null;
        msa: string | null;
        city: string;
        state: string;
        geo_precision: GeoPrecision;
        lat: number;
        lng: number;
        status: {
          match: true;
          requested_item: Record<string, unknown>;
          details: string[];
          changes: string[];
          errors: string[];
        };
      }
    | {
        address_full: null;
        slug: null;
        address: null;
        unit: null;
        zipcode: null;
        zipcode_plus4: null;
        block_id: null;
        blockgroup_id: null;
        county_fips: null;
        metrodiv: null;
        msa: null;
        city: null;
        state: null;
        geo_precision: 'unknown';
        lat: null;
        lng: null;
        status: {
          match: false;
          requested_item: Record<string, unknown>;
          details: string[];
          changes: string[];
          errors: string[];
        };
      };
  block_info: {
    block_id: string;
  };
  zipcode_info: {
    zipcode: string;
  };
  msa_info: {
    msa: string;
  };
}

/** Each level's info member in a chunk; a level without one has none. */
export interface LevelInfo {
  property: {
    address_info: InfoTypes['address_info'];
  };
  block: {
    block_info: InfoTypes['block_info'];
  };
  blockgroup: object;
  zip: {
    zipcode_info: InfoTypes['zipcode_info'];
  };
  metrodiv: object;
  msa: {
    msa_info: InfoTypes['msa_info'];
  };
  state: object;
  reports: object;
}

/** An item to ask about, by level: its identifiers, and meta, echoed in the item's chunk. */
export interface ItemTypes {
  property: {
    /** building number and street, optionally the unit */
    address?: string;
    /** unit designation, when not already in address */
    unit?: string;
    /** city */
    city?: string;
    /** 2-letter abbreviation or full state name */
    state?: string;
    /** 5-digit ZIP code */
    zipcode?: string;
    /** address slug returned by the service in address_info */
    slug?: string;
    /** arbitrary string echoed back with the item */
    meta?: string;
  } & (
    | {
        address: string;
      }
    | {
        slug: string;
      }
  );
  block: {
    /** 15-digit census block */
    block_id: string;
    /** arbitrary string echoed back with the item */
    meta?: string;
  };
  blockgroup: {
    /** 12-digit census block group */
    blockgroup_id: string;
    /** arbitrary string echoed back with the item */
    meta?: string;
  };
  zip: {
    /** 5-digit ZIP code */
    zipcode: string;
    /** arbitrary string echoed back with the item */
    meta?: string;
  };
  metrodiv: {
    /** 5-digit metropolitan division */
    metrodiv: string;
    /** arbitrary string echoed back with the item */
    meta?: string;
  };
  msa: {
    /** 5-digit metropolitan statistical area */
    msa: string;
    /** arbitrary string echoed back with the item */
    meta?: string;
  };
  state: {
    /** 2-letter abbreviation (POST also takes the full name) */
    state: string;
    /** arbitrary string echoed back with the item */
    meta?: string;
  };
  reports: Record<string, string>;
}

/** Each endpoint's parameters, by endpoint name. */
export interface ParamTypes {
  'property/geocode': object;
  'property/census': object;
  'property/details': object;
  'property/details_enhanced': object;
  'property/fema_disaster_area': object;
  'property/flood': object;
  'property/land_value': object;
  'property/listing_status': object;
  'property/ltv_details': object;
  'property/ltv_origination': object;
  'property/mortgage_lien': object;
  'property/mortgage_lien_all': object;
  'property/nod': object;
  'property/on_market': object;
  'property/owner_occupied': object;
  'property/rental_listing_status': object;
  'property/rental_on_market': object;
  'property/rental_value': object;
  'property/rental_value_forecast': object;
  'property/rental_value_within_block': {
    /** caller's value (USD) to position within the block distribution */
    client_value?: number;
    /** caller's value per sq ft (USD) to position */
    client_value_sqft?: number;
  };
  'property/rental_yield': object;
  'property/sales_history': object;
  'property/school': object;
  'property/value': object;
  'property/value_details_adjusted': {
    /** bedrooms to add */
    add_beds?: number;
    /** bathrooms to add, whole or half numbers */
    add_baths?: number;
    /** square feet to add */
    add_sqft?: number;
    /** pools to add; only 1 is accepted */
    add_pools?: 1;
  } & (
    | {
        add_beds: number;
      }
    | {
        add_baths: number;
      }
    | {
        add_sqft: number;
      }
    | {
        add_pools: 1;
      }
  );
  'property/value_forecast': object;
  'property/value_hpi_adjusted': {
    /** target month (yyyy-mm-01); default this month */
    adjust_to_date?: string;
    /** caller's value (USD) to adjust */
    client_value?: number;
    /** month of client_value (yyyy-mm-01) */
    client_date?: string;
  };
  'property/value_within_block': ParamTypes['property/rental_value_within_block'];
  'property/component_mget': object;
  'property/ltv': object;
  'property/block_crime': object;
  'property/block_hazard_earthquake': object;
  'property/block_hazard_hail': object;
  'property/block_hazard_hurricane': object;
  'property/block_hazard_tornado': object;
  'property/block_hazard_wind': object;
  'property/block_hcri': {
    /** SFD, TH, CND, INC or MFH (default SFD) */
    property_type?: BlockPropertyType;
  };
  'property/block_rental_value_distribution': ParamTypes['property/block_hcri'];
  'property/block_superfund': object;
  'property/block_value_distribution': ParamTypes['property/block_hcri'];
  'property/block_histogram_baths': ParamTypes['property/block_hcri'];
  'property/block_histogram_beds': ParamTypes['property/block_hcri'];
  'property/block_histogram_building_area': ParamTypes['property/block_hcri'];
  'property/block_histogram_value': ParamTypes['property/block_hcri'];
  'property/block_histogram_value_sqft': ParamTypes['property/block_hcri'];
  'property/block_value_ts': ParamTypes['property/block_hcri'];
  'property/block_value_ts_forecast': ParamTypes['property/block_hcri'];
  'property/block_value_ts_historical': ParamTypes['property/block_hcri'];
  'property/zip_details': object;
  'property/zip_hcri': ParamTypes['property/block_hcri'];
  'property/zip_hpi_forecast': object;
  'property/zip_hpi_historical': object;
  'property/zip_hpi_ts': object;
  'property/zip_hpi_ts_forecast': object;
  'property/zip_hpi_ts_historical': object;
  'property/zip_volatility': object;
  'property/msa_details': object;
  'property/msa_hpi_ts': object;
  'property/msa_hpi_ts_forecast': object;
  'property/msa_hpi_ts_historical': object;
  'block/crime': object;
  'block/hazard_earthquake': object;
  'block/hazard_hail': object;
  'block/hazard_hurricane': object;
  'block/hazard_tornado': object;
  'block/hazard_wind': object;
  'block/hcri': ParamTypes['property/block_hcri'];
  'block/rental_value_distribution': ParamTypes['property/block_hcri'];
  'block/superfund': object;
  'block/value_distribution': ParamTypes['property/block_hcri'];
  'block/histogram_baths': ParamTypes['property/block_hcri'];
  'block/histogram_beds': ParamTypes['property/block_hcri'];
  'block/histogram_building_area': ParamTypes['property/block_hcri'];
  'block/histogram_value': ParamTypes['property/block_hcri'];
  'block/histogram_value_sqft': ParamTypes['property/block_hcri'];
  'block/value_ts': ParamTypes['property/block_hcri'];
  'block/value_ts_forecast': ParamTypes['property/block_hcri'];
  'block/value_ts_historical': ParamTypes['property/block_hcri'];
  'block/component_mget': object;
  'zip/details': object;
  'zip/hcri': ParamTypes['property/block_hcri'];
  'zip/hpi_forecast': object;
  'zip/hpi_historical': object;
  'zip/hpi_ts': object;
  'zip/hpi_ts_forecast': object;
  'zip/hpi_ts_historical': object;
  'zip/volatility': object;
  'zip/component_mget': object;
  'msa/details': object;
  'msa/hpi_ts': object;
  'msa/hpi_ts_forecast': object;
  'msa/hpi_ts_historical': object;
  'msa/component_mget': object;
}

/** The level of an endpoint, from its name (`property/value`: `property`). */
export type LevelOf<Name extends string> = Name extends `${infer Level extends keyof LevelInfo}/${string}` ? Level : never;

/**
 * The chunk answered for one item by the endpoints `Names` (one, or the components of an mget, all of one level):
 * the level's info member, one section per endpoint, and the item's meta when it carried one. The meta is typed
 * where the sandbox puts it, at the top level; a service that echoes it inside the info member has it there too.
 */
export type ResultChunk<Names extends EndpointName> = LevelInfo[LevelOf<Names>] & { [Name in Names]: Section<ResultTypes[Name]> } & {
  meta?: string;
};

/** A value of the catalog's ARM_INDEXES (src/catalog/enums.ts). */
export type ArmIndex =
  | 'cd_6m'
  | 'cofi'
  | 'libor_1m'
  | 'libor_1y'
  | 'libor_2m'
  | 'libor_3m'
  | 'libor_6m'
  | 'mta_12m'
  | 'prime'
  | 'tbill_10y'
  | 'tbill_1y'
  | 'tbill_3y'
  | 'tbill_5y'
  | 'tbill_6m';

/** A value of the catalog's BLOCK_PROPERTY_TYPES (src/catalog/enums.ts). */
export type BlockPropertyType = 'SFD' | 'TH' | 'CND' | 'INC' | 'MFH';

/** A value of the catalog's GEO_PRECISIONS (src/catalog/enums.ts). */
export type GeoPrecision = 'rooftop' | 'zip9' | 'zip5' | 'unknown';

/** A value of the catalog's LEASE_PAYMENT_FREQUENCIES (src/catalog/enums.ts). */
export type LeasePaymentFrequency = 'Yearly' | 'Semi-Annually' | 'Monthly' | 'Quarterly' | 'Weekly' | 'Daily';

/** A value of the catalog's LENDER_TYPES (src/catalog/enums.ts). */
export type LenderType =
  | 'bank'
  | 'credit_union'
  | 'finance_company'
  | 'government'
  | 'individual_private_party'
  | 'insurance'
  | 'internet'
  | 'lending_institution'
  | 'mortgage_company'
  | 'other_company'
  | 'reo_foreclosure_company'
  | 'seller'
  | 'subprime_lender';

/** A value of the catalog's LIEN_EVENT_TYPES (src/catalog/enums.ts). */
export type LienEventType = 'lien_concurrent_1' | 'lien_concurrent_2' | 'lien_stand_alone';

/** A value of the catalog's LIEN_TYPES (src/catalog/enums.ts). */
export type LienType =
  | 'arm'
  | 'commercial'
  | 'construction'
  | 'conventional'
  | 'fannie_mae_freddie_mac'
  | 'farmers_home_administration'
  | 'fha'
  | 'land_contract'
  | 'open_end'
  | 'revolving_credit_line'
  | 'second_to_cover_down_payment'
  | 'seller_take_back'
  | 'stand_alone_first'
  | 'stand_alone_refi'
  | 'stand_alone_second'
  | 'state_veterans'
  | 'usda'
  | 'va';

/** A value of the catalog's LTV_SOURCES (src/catalog/enums.ts). */
export type LtvSource = 'deed' | 'mls' | 'avm_block' | 'avm_blockgroup' | 'avm_zip' | 'avm_msa' | 'avm_state';

/** A value of the catalog's PROPERTY_TYPES (src/catalog/enums.ts). */
export type PropertyType =
  | 'Single Family Residential'
  | 'Townhouse'
  | 'Condominium'
  | 'Manufactured/Mobile Home'
  | 'Multi-Family'
  | 'Land'
  | 'Timeshare'
  | 'Commercial'
  | 'Other';

/** A value of the catalog's RENTAL_LISTING_STATUSES (src/catalog/enums.ts). */
export type RentalListingStatus =
  'Coming Soon' | 'Active' | 'Closed' | 'Sold' | 'Pending' | 'Contingent' | 'Cancelled' | 'Expired' | 'Withdrawn' | 'Deleted' | 'Leased';

/** A value of the catalog's SALE_LISTING_STATUSES (src/catalog/enums.ts). */
export type SaleListingStatus =
  | 'Coming Soon'
  | 'Active'
  | 'Closed'
  | 'Sold'
  | 'Pending'
  | 'Contingent'
  | 'Cancelled'
  | 'Expired'
  | 'Withdrawn'
  | 'Deleted'
  | 'Leased'
  | 'Not Listed';
