"""What a health or access fact bears on beyond its class's topics: the world knowledge that joins a condition to
an everyday question whose words say nothing of health.

A pacemaker matters for an induction hob or an airport's security gate, a latex allergy for a dentist's gloves,
asthma for a cathedral's incense, blood thinners for a tattoo. :mod:`~kioko_core.recall.safety` brings a fact to
the questions of its class's topics (food for an allergy, travel for a wheelchair) and to those sharing a content
word with it; a question like "What should I check before buying an induction hob?" shares neither with "I've had a
pacemaker fitted". Each entry of :data:`BRIDGES` pairs the words of a condition with the words of the things it
bears on, as a reference table of common medical advice would (what to avoid, what to tell, what to check), not
as the phrasings of any question. Only the condition's own words decide which row applies, so a fact with no
condition named brings nothing more than before.
"""

from __future__ import annotations

import re

_WORD = r"\b(?:{})\b"


def _any(words: str) -> re.Pattern[str]:
    return re.compile(_WORD.format(words), re.IGNORECASE)


BRIDGES: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    # implanted heart devices: strong magnetic fields and security scanners
    (
        _any(r"pacemakers?|defibrillators?|icd|heart implants?"),
        _any(
            r"induction|magnets?|magnetic|mri|scans?|scanners?|metal detectors?|security (?:gates?|checks?|scanners?)|"
            r"airport security|welding|welders?|hobs?|cooktops?|jacuzzis?|hot tubs?|power tools?|e-?bikes?"
        ),
    ),
    # latex: gloves and rubber in clinics, dentists, salons, party balloons, condoms
    (
        _any(r"latex"),
        _any(
            r"dent(?:al|ists?)|clinics?|surgery|surgeries|operations?|hospitals?|doctors?|nurses?|gloves?|"
            r"balloons?|condoms?|salons?|tattoos?|piercings?|physio\w*|vets?|veterinary|care homes?|labs?|laborator\w*"
        ),
    ),
    # asthma and other airway conditions: smoke, fumes, dust, pollen, cold air, exertion
    (
        _any(r"asthma\w*|copd|inhalers?|breathing (?:problems?|condition)"),
        _any(
            r"smoke|smok\w*|incense|candles?|fireworks?|bonfires?|fog machines?|smoke machines?|dust\w*|pollen|"
            r"hay|barns?|farms?|stables?|perfumes?|fragrances?|aerosols?|hairspray|paint\w*|fumes?|varnish\w*|"
            r"bleach|cleaning products?|cats?|horses?|mould|mold|damp|saunas?|steam rooms?|altitude|mountains?|"
            r"ski\w*|cathedrals?|churches?|temples?|concerts?|gigs?|festivals?|runs?|running|marathons?|hikes?|hiking"
        ),
    ),
    # epilepsy, seizures: flashing lights, screens, water alone, driving, lack of sleep
    (
        _any(r"epilep\w*|seizures?"),
        _any(
            r"strobes?|flash\w*|light shows?|lights|clubs?|nightclubs?|raves?|discos?|concerts?|gigs?|fireworks?|"
            r"games?|gaming|vr|screens?|swim\w*|baths?|pools?|drive|driving|driving licen[cs]e|all-nighters?|"
            r"night shifts?|climb\w*|scuba|diving"
        ),
    ),
    # diabetes: sugar, fasting, insulin in travel and on exertion
    (
        _any(r"diabet\w*|insulin|blood sugar|hypos?"),
        _any(
            r"sugar\w*|sweets?|desserts?|cakes?|fasting|fasts?|ramadan|alcohol|drinks?|flights?|fly|flying|"
            r"time zones?|jet lag|trips?|travel\w*|holidays?|marathons?|runs?|running|hikes?|hiking|exercis\w*|"
            r"gym|workouts?|driving|drive|night shifts?|exams?"
        ),
    ),
    # pregnancy: foods, drinks, heat, medicines, x-rays, rides, lifting, litter trays
    (
        _any(r"pregnan\w*|expecting (?:a baby|twins)|weeks? along"),
        _any(
            r"alcohol|wine|beer|cocktails?|drinks?|cheeses?|brie|sushi|raw|pate|pâté|liver|coffee|caffeine|"
            r"medicines?|medication|painkillers?|ibuprofen|x-?rays?|saunas?|hot tubs?|jacuzzis?|spas?|"
            r"roller ?coasters?|rides?|theme parks?|flights?|fly|flying|lift\w*|heavy|paint\w*|cat litter|"
            r"litter trays?|vaccin\w*|scuba|diving|ski\w*|horse riding|massages?"
        ),
    ),
    # blood thinners: painkillers, surgery and dentists, cuts, some foods
    (
        _any(r"warfarin|blood thinners?|anticoagulants?|apixaban|rivaroxaban|clopidogrel"),
        _any(
            r"aspirin|ibuprofen|painkillers?|nsaids?|surgery|operations?|dent(?:al|ists?)|tooth|teeth|tattoos?|"
            r"piercings?|shav\w*|contact sports?|rugby|boxing|martial arts|skiing|grapefruit|cranberr\w*|"
            r"supplements?|vitamins?|fish oil|alcohol|knives|chopping"
        ),
    ),
    # sting and drug allergies: outdoors for stings, prescriptions and clinics for drugs
    (
        _any(r"(?:bee|wasp|insect) stings?|stings?|bees?|wasps?"),
        _any(
            r"gardens?|gardening|picnics?|camping|hikes?|hiking|outdoors?|outside|parks?|orchards?|beekeep\w*|"
            r"barbecues?|bbq|walks?|beach\w*|festivals?|allotments?"
        ),
    ),
    (
        _any(r"penicillin|antibiotics?|amoxicillin|sulfa|codeine|morphine|aspirin|ibuprofen|anaesthe\w*|anesthe\w*"),
        _any(
            r"doctors?|gps?|prescriptions?|prescribed|pharmac\w*|chemists?|hospitals?|surgery|surgeries|operations?|"
            r"dent(?:al|ists?)|infections?|medicines?|medication|painkillers?|clinics?|a&e|emergency|travel insurance"
        ),
    ),
    # mobility: stairs, distance, standing, lifting, uneven ground
    (
        _any(
            r"wheelchairs?|(?:power|electric) ?chairs?|mobility|crutch(?:es)?|walking (?:stick|cane|frame)|zimmer|(?:bad|dodgy) (?:knee|back|hip)s?|"
            r"knee (?:replacement|surgery)|hip replacement|slipped disc|sciatica|can(?:'t|not) (?:walk|climb|manage stairs)"
        ),
        _any(
            r"stairs|steps|lifts?|elevators?|floors?|flats?|apartments?|houses?|viewings?|moving|removals?|lifting|"
            r"heavy|furniture|restaurants?|pubs?|bars?|cafes?|venues?|theat(?:re|er)s?|cinemas?|concerts?|stadiums?|"
            r"beach\w*|cobbles?|old towns?|castles?|cathedrals?|churches?|tours?|museums?|hikes?|hiking|walks?|"
            r"queues?|standing|gym|workouts?|running|seats?|parking|taxis?|buses|trains?|boats?|ferr(?:y|ies)"
        ),
    ),
    # hearing: calls, alarms, noise, spoken events
    (
        _any(r"deaf\w*|hard of hearing|hearing aids?|hearing loss|cochlear implants?|tinnitus"),
        _any(
            r"phone calls?|calls?|ring|meetings?|interviews?|video calls?|webinars?|conferences?|lectures?|"
            r"concerts?|gigs?|cinemas?|films?|movies?|theat(?:re|er)s?|plays?|tours?|alarms?|smoke alarms?|"
            r"doorbells?|announcements?|swim\w*|pools?|noisy|noise|clubs?|restaurants?|get hold of|contact\w*|"
            r"phon\w*|appointments?|receptions?|helplines?|customer (?:service|support)|engineers?|plumbers?|"
            r"electricians?|tradesm[ae]n|tradespeople"
        ),
    ),
    # sight: reading, driving, screens, forms, unfamiliar places
    (
        _any(r"blind|visually impaired|partially sighted|low vision|sight loss|guide dogs?|macular|glaucoma"),
        _any(
            r"driv\w*|read\w*|forms?|documents?|letters?|contracts?|menus?|signs?|screens?|websites?|apps?|"
            r"slides?|presentations?|maps?|directions?|stations?|airports?|hotels?|venues?|tours?|museums?"
        ),
    ),
    # enclosed spaces, heights, motion
    (
        _any(r"claustrophob\w*"),
        _any(r"mri|scans?|lifts?|elevators?|tunnels?|caves?|escape rooms?|planes?|flights?|cabins?|submarines?"),
    ),
    (
        _any(r"fear of heights|vertigo|acrophob\w*"),
        _any(
            r"heights?|towers?|rooftops?|roof|balcon(?:y|ies)|climb\w*|ladders?|cable cars?|bridges?|glass floors?|"
            r"ferris wheels?|skydiv\w*|zip ?lines?|cliffs?|hikes?|hiking|mountains?"
        ),
    ),
    (
        _any(r"(?:motion|travel|sea|car)[- ]?sick\w*|seasick\w*|carsick\w*"),
        _any(
            r"boats?|ferr(?:y|ies)|cruises?|sailing|car journeys?|road trips?|drives?|coach(?:es)?|buses|trains?|"
            r"flights?|roller ?coasters?|rides?|vr|whale watching|fishing trips?"
        ),
    ),
    # heart conditions: exertion, stimulants, heat, altitude
    (
        _any(
            r"heart (?:condition|problems?|disease|failure|attack|scare)|arrhythmi\w*|angina|high blood pressure|hypertension"
        ),
        _any(
            r"exercis\w*|gym|workouts?|marathons?|runs?|running|hikes?|hiking|climb\w*|altitude|mountains?|"
            r"saunas?|hot tubs?|caffeine|coffee|energy drinks?|salt|salty|alcohol|roller ?coasters?|rides?|"
            r"decongestants?|cold medicines?|scuba|diving|ski\w*|snow shovel\w*"
        ),
    ),
    # migraines: light, screens, certain foods and drinks, sleep
    (
        _any(r"migraines?"),
        _any(
            r"screens?|bright lights?|strobes?|flash\w*|concerts?|clubs?|red wine|wine|alcohol|cheeses?|chocolate|"
            r"caffeine|coffee|perfumes?|fragrances?|night shifts?|all-nighters?|flights?|altitude"
        ),
    ),
    # kidney and liver conditions: painkillers, protein, salt, alcohol
    (
        _any(r"(?:kidney|liver) (?:disease|problems?|failure|condition)|dialysis"),
        _any(
            r"ibuprofen|painkillers?|nsaids?|protein\w*|supplements?|salt|salty|potassium|bananas?|alcohol|"
            r"drinks?|paracetamol|medicines?|medication|diet\w*|travel\w*|holidays?"
        ),
    ),
)
"""(a condition's words, the words of what it bears on): a fact naming the condition bears on a question naming
one of the things."""


def bridged(fact: str, question: str) -> bool:
    """Whether a condition ``fact`` names bears on something ``question`` names (:data:`BRIDGES`)."""
    return any(condition.search(fact) and things.search(question) for condition, things in BRIDGES)


__all__ = ["BRIDGES", "bridged"]
