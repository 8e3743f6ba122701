"""Generate the embedded English-Spanish corpus from a small hand-written grammar.

Every sentence is built once from random choices and then spelled out in both languages,
so the Spanish is correct by construction: verbs conjugated per person (regular -ar/-er/-ir
and a table of irregular ones), articles, determiners and adjectives agreeing with their
noun in gender and number, adjectives after the noun (the red car -> el coche rojo),
"no" before the verb for negation, ¿...? around questions, personal "a" before people,
a + el -> al and de + el -> del. The generator is seeded, so the same seed always writes
the same file, and each English sentence gets exactly one Spanish translation.

    python source_data/translator/grammar.py --out source_data/translator/en-es.tsv

Output: one pair per line, "English<TAB>Spanish" (the manythings.org/Anki layout).
Written for this course and dedicated to the public domain (CC0).
"""

from __future__ import annotations

import argparse
import random
import re
from dataclasses import dataclass
from pathlib import Path

SEED = 1234
SIZE = 25_000
DEFAULT_OUT = Path(__file__).resolve().parent / "en-es.tsv"

# ---------------------------------------------------------------------------------------
# Spanish verbs: the present tense for yo, tú, él/ella, nosotros, ellos.
# ("you" is always translated as tú, so there is no vosotros/ustedes form.)

ENDINGS = {"ar": ("o", "as", "a", "amos", "an"),
           "er": ("o", "es", "e", "emos", "en"),
           "ir": ("o", "es", "e", "imos", "en")}

IRREGULAR = {verb: tuple(forms.split()) for verb, forms in {
    "ser": "soy eres es somos son",
    "estar": "estoy estás está estamos están",
    "tener": "tengo tienes tiene tenemos tienen",
    "ir": "voy vas va vamos van",
    "querer": "quiero quieres quiere queremos quieren",
    "poder": "puedo puedes puede podemos pueden",
    "hacer": "hago haces hace hacemos hacen",
    "ver": "veo ves ve vemos ven",
    "traer": "traigo traes trae traemos traen",
    "conducir": "conduzco conduces conduce conducimos conducen",
    "cerrar": "cierro cierras cierra cerramos cierran",
    "dormir": "duermo duermes duerme dormimos duermen",
    "jugar": "juego juegas juega jugamos juegan",
    "encontrar": "encuentro encuentras encuentra encontramos encuentran",
    "almorzar": "almuerzo almuerzas almuerza almorzamos almuerzan",
}.items()}

YO, TU, EL, NOSOTROS, ELLOS = range(5)  # person index into the tables above


def conjugate(verb: str, person: int) -> str:
    """Present tense of a Spanish infinitive: conjugate("comer", NOSOTROS) -> "comemos"."""
    if verb in IRREGULAR:
        return IRREGULAR[verb][person]
    return verb[:-2] + ENDINGS[verb[-2:]][person]


def third_singular(verb: str) -> str:
    """English 3rd person singular of a (possibly phrasal) verb: "look for" -> "looks for"."""
    head, _, rest = verb.partition(" ")
    if head == "have":
        head = "has"
    elif head.endswith(("s", "sh", "ch", "x", "o")):
        head += "es"
    elif head.endswith("y") and head[-2] not in "aeiou":
        head = head[:-1] + "ies"
    else:
        head += "s"
    return f"{head} {rest}".strip()


# ---------------------------------------------------------------------------------------
# Nouns, adjectives and noun phrases.

@dataclass(frozen=True)
class Noun:
    en: str               # English singular ("" for plural-only nouns)
    en_pl: str | None     # English plural, None for mass nouns (bread, water)
    es: str
    es_pl: str | None
    gender: str           # "m" or "f"
    adjs: tuple[str, ...] = ()   # adjective groups that make sense with this noun
    el_fem: bool = False  # feminine noun with stressed a-: el agua (but esta agua, agua fría)

    @property
    def mass(self) -> bool:
        return self.en_pl is None


def N(en: str, es: str, gender: str, adjs: str = "", en_pl: str = "", es_pl: str = "") -> Noun:
    """A countable noun; regular plurals (+s) unless given."""
    return Noun(en, en_pl or en + "s", es, es_pl or es + "s", gender, tuple(adjs.split()))


def M(en: str, es: str, gender: str, adjs: str = "", el_fem: bool = False) -> Noun:
    """A mass noun: no plural, no "a"."""
    return Noun(en, None, es, None, gender, tuple(adjs.split()), el_fem)


THINGS = {n.en: n for n in [
    N("car", "coche", "m", "color size age price look clean"),
    N("book", "libro", "m", "color size age price"),
    N("house", "casa", "f", "color size age price look clean"),
    N("table", "mesa", "f", "color size age price clean"),
    N("chair", "silla", "f", "color size age"),
    N("window", "ventana", "f", "size clean"),
    N("door", "puerta", "f", "color"),
    N("shirt", "camisa", "f", "color price age clean"),
    N("bag", "bolso", "m", "color size price age"),
    N("box", "caja", "f", "color size", en_pl="boxes"),
    N("phone", "teléfono", "m", "age price"),
    N("computer", "ordenador", "m", "age price", es_pl="ordenadores"),
    N("pen", "bolígrafo", "m", "color"),
    N("letter", "carta", "f", "size"),
    N("newspaper", "periódico", "m", "age"),
    N("key", "llave", "f", "size"),
    N("bicycle", "bicicleta", "f", "color age price"),
    N("hat", "sombrero", "m", "color size look"),
    N("dress", "vestido", "m", "color price look", en_pl="dresses"),
    N("shoe", "zapato", "m", "color age price"),
    N("ball", "pelota", "f", "color size"),
    N("watch", "reloj", "m", "age price", en_pl="watches", es_pl="relojes"),
    N("pencil", "lápiz", "m", "color", es_pl="lápices"),
    N("bed", "cama", "f", "size"),
    N("cup", "taza", "f", "color clean"),
    N("glass", "vaso", "m", "clean", en_pl="glasses"),
    N("plate", "plato", "m", "clean"),
    N("map", "mapa", "m", "age"),
    N("photo", "foto", "f", "age"),
    N("camera", "cámara", "f", "age price"),
    N("room", "habitación", "f", "size clean", es_pl="habitaciones"),
    N("kitchen", "cocina", "f", "size clean"),
    N("tree", "árbol", "m", "size", es_pl="árboles"),
    N("flower", "flor", "f", "color look", es_pl="flores"),
    N("song", "canción", "f", "", es_pl="canciones"),
]}

ANIMALS = {n.en: n for n in [
    N("dog", "perro", "m", "black-white size age look"),
    N("cat", "gato", "m", "black-white size age look"),
    N("horse", "caballo", "m", "black-white size age look"),
    N("bird", "pájaro", "m", "color size"),
    N("mouse", "ratón", "m", "black-white size", en_pl="mice", es_pl="ratones"),
]}

FOOD = {n.en: n for n in [
    M("bread", "pan", "m", "fresh hot"),
    M("rice", "arroz", "m", "hot cold"),
    M("meat", "carne", "f", "fresh"),
    M("fish", "pescado", "m", "fresh"),
    M("cheese", "queso", "m", "fresh"),
    M("soup", "sopa", "f", "hot cold"),
    M("chicken", "pollo", "m", "hot cold"),
    M("fruit", "fruta", "f", "fresh"),
    M("chocolate", "chocolate", "m", "hot sweet"),
    M("pasta", "pasta", "f", "hot cold"),
    N("apple", "manzana", "f", "red-green sweet"),
    N("egg", "huevo", "m", "fresh"),
    N("orange", "naranja", "f", "sweet"),
    N("banana", "plátano", "m", "yellow"),
    N("cookie", "galleta", "f", "sweet"),
    N("potato", "patata", "f", "hot", en_pl="potatoes"),
    N("tomato", "tomate", "m", "red-green fresh", en_pl="tomatoes"),
    N("sandwich", "bocadillo", "m", "size", en_pl="sandwiches"),
    N("cake", "pastel", "m", "size sweet", es_pl="pasteles"),
    N("pizza", "pizza", "f", "size hot"),
    N("lemon", "limón", "m", "yellow", es_pl="limones"),
    N("salad", "ensalada", "f", "fresh"),
]}

DRINKS = {n.en: n for n in [
    M("water", "agua", "f", "hot cold", el_fem=True),
    M("milk", "leche", "f", "hot cold fresh"),
    M("coffee", "café", "m", "hot cold"),
    M("tea", "té", "m", "hot cold"),
    M("juice", "zumo", "m", "cold fresh"),
    M("wine", "vino", "m", "cold"),
    M("beer", "cerveza", "f", "cold"),
]}

NOUNS = {**THINGS, **ANIMALS, **FOOD, **DRINKS}


@dataclass(frozen=True)
class Adj:
    en: str
    es: tuple[str, str, str, str]   # masculine, feminine, masculine plural, feminine plural
    estar: bool = False             # a state (estar) rather than a quality (ser)

    def agree(self, gender: str, plural: bool) -> str:
        return self.es[(gender == "f") + 2 * plural]


def inflect(es: str) -> tuple[str, str, str, str]:
    """rojo -> rojo roja rojos rojas; grande -> grande grandes; azul -> azul azules."""
    if es.endswith("o"):
        return es, es[:-1] + "a", es + "s", es[:-1] + "as"
    plural = es + "s" if es.endswith("e") else es[:-1] + "ces" if es.endswith("z") else es + "es"
    return es, es, plural, plural


def A(en: str, es: str, estar: bool = False) -> Adj:
    return Adj(en, inflect(es), estar)


ADJECTIVES = {
    "color": [A("red", "rojo"), A("black", "negro"), A("white", "blanco"), A("green", "verde"),
              A("blue", "azul"), A("yellow", "amarillo")],
    "black-white": [A("black", "negro"), A("white", "blanco")],
    "red-green": [A("red", "rojo"), A("green", "verde")],
    "yellow": [A("yellow", "amarillo")],
    "size": [A("big", "grande"), A("small", "pequeño")],
    "age": [A("new", "nuevo"), A("old", "viejo")],
    "price": [A("expensive", "caro"), A("cheap", "barato")],
    "look": [A("beautiful", "bonito"), A("ugly", "feo")],
    "clean": [A("clean", "limpio", estar=True), A("dirty", "sucio", estar=True)],
    "hot": [A("hot", "caliente", estar=True)],
    "cold": [A("cold", "frío", estar=True)],
    "fresh": [A("fresh", "fresco", estar=True)],
    "sweet": [A("sweet", "dulce")],
}

COLORS = ("color", "black-white", "red-green", "yellow")

DETERMINERS_ES = {  # masculine, feminine, masculine plural, feminine plural
    "the": ("el", "la", "los", "las"), "a": ("un", "una", "", ""), "some": ("", "", "unos", "unas"),
    "this": ("este", "esta", "estos", "estas"), "that": ("ese", "esa", "esos", "esas"),
    "my": ("mi", "mi", "mis", "mis"), "your": ("tu", "tu", "tus", "tus"),
    "his": ("su", "su", "sus", "sus"), "her": ("su", "su", "sus", "sus"),
    "their": ("su", "su", "sus", "sus"),
    "our": ("nuestro", "nuestra", "nuestros", "nuestras"), "no": ("ningún", "ninguna", "", ""),
}
NUMBERS = {"two": "dos", "three": "tres", "four": "cuatro", "five": "cinco", "ten": "diez"}
EN_PLURAL_DET = {"this": "these", "that": "those"}


@dataclass(frozen=True)
class NP:
    """A noun phrase in both languages, with what agreement needs to know."""
    en: str
    es: str
    gender: str
    plural: bool


def noun_phrase(noun: Noun, det: str, plural: bool, adj: Adj | None = None) -> NP:
    """det: an English determiner ("the", "my", "two", ...), "" for none, or "generic":
    no article in English, the definite article in Spanish (I like cats -> me gustan los gatos)."""
    en_noun = noun.en_pl if plural else noun.en
    es_noun = noun.es_pl if plural else noun.es
    en_det = EN_PLURAL_DET.get(det, det) if plural else det
    if det == "generic":
        en_det, det = "", "the"
    if det in NUMBERS:
        es_det = NUMBERS[det]
    elif det:
        es_det = DETERMINERS_ES[det][(noun.gender == "f") + 2 * plural]
        if noun.el_fem and not plural and det in ("the", "a", "no"):
            es_det = DETERMINERS_ES[det][0]           # el agua, un agua
    else:
        es_det = ""
    en = join(en_det, adj.en if adj else "", en_noun)
    es = join(es_det, es_noun, adj.agree(noun.gender, plural) if adj else "")
    return NP(en, es, noun.gender, plural)


def join(*words: str) -> str:
    return " ".join(w for w in words if w)


# ---------------------------------------------------------------------------------------
# People: subjects and personal objects.

@dataclass(frozen=True)
class Subject:
    en: str
    es: str
    person: int
    gender: str
    pronoun: bool

    @property
    def en_poss(self) -> str:
        """The English possessive that refers back to this subject: my, his, their..."""
        if self.person == EL:
            return "his" if self.gender == "m" else "her"
        return ("my", "your", "", "our", "their")[self.person]


PRONOUNS = [Subject("I", "yo", YO, "m", True), Subject("you", "tú", TU, "m", True),
            Subject("he", "él", EL, "m", True), Subject("she", "ella", EL, "f", True),
            Subject("we", "nosotros", NOSOTROS, "m", True), Subject("they", "ellos", ELLOS, "m", True)]

# (English singular, English plural, Spanish singular, Spanish plural, gender); family nouns
# take possessives (my mother), the others "the" (the teacher).
FAMILY = [("father", "", "padre", "", "m"), ("mother", "", "madre", "", "f"),
          ("brother", "brothers", "hermano", "hermanos", "m"), ("sister", "sisters", "hermana", "hermanas", "f"),
          ("", "parents", "", "padres", "m"), ("friend", "friends", "amigo", "amigos", "m"),
          ("grandmother", "", "abuela", "", "f"), ("grandfather", "", "abuelo", "", "m"),
          ("son", "sons", "hijo", "hijos", "m"), ("daughter", "daughters", "hija", "hijas", "f"),
          ("neighbor", "neighbors", "vecino", "vecinos", "m")]
OTHERS = [("teacher", "teachers", "profesor", "profesores", "m"), ("doctor", "doctors", "médico", "médicos", "m"),
          ("boy", "boys", "chico", "chicos", "m"), ("girl", "girls", "chica", "chicas", "f"),
          ("child", "children", "niño", "niños", "m"), ("student", "students", "estudiante", "estudiantes", "m")]
NAMES = [("Tom", "Tom", "m"), ("Carlos", "Carlos", "m"), ("Maria", "María", "f"), ("Ana", "Ana", "f"),
         ("Lucia", "Lucía", "f")]


def person_np(rng: random.Random, owner: Subject | None = None) -> NP:
    """Someone: a name, "the teacher", "my sisters" or (with owner) "his mother"."""
    r = rng.random()
    if r < 0.15:
        en, es, gender = rng.choice(NAMES)
        return NP(en, es, gender, False)
    if r < 0.4:
        en, en_pl, es, es_pl, gender = rng.choice(OTHERS)
        return noun_phrase(Noun(en, en_pl, es, es_pl, gender), "the", rng.random() < 0.35)
    en, en_pl, es, es_pl, gender = rng.choice(FAMILY)
    plural = not en or (en_pl != "" and rng.random() < 0.3)
    det = owner.en_poss if owner is not None else rng.choice(["my", "my", "your", "his", "her", "our", "their"])
    noun = Noun(en, en_pl, es, es_pl, gender)
    return noun_phrase(noun, det, plural)


def subject(rng: random.Random) -> Subject:
    if rng.random() < 0.65:
        return rng.choice(PRONOUNS)
    np = person_np(rng)
    return Subject(np.en, np.es, ELLOS if np.plural else EL, np.gender, False)


# ---------------------------------------------------------------------------------------
# Objects.

def pick_adj(rng: random.Random, noun: Noun, p: float = 0.25) -> Adj | None:
    if not noun.adjs or rng.random() >= p:
        return None
    return rng.choice(ADJECTIVES[rng.choice(noun.adjs)])


def object_np(rng: random.Random, noun: Noun, subj: Subject | None = None, adj_p: float = 0.25) -> NP:
    """A noun as an object: "bread", "an apple", "the red cars", "two dogs", "his book"..."""
    adj = pick_adj(rng, noun, adj_p)
    owner = subj.en_poss if subj is not None else "my"
    if noun.mass:
        det = rng.choices(["", "the", "this", "that", owner, "your"], [55, 15, 6, 4, 14, 6])[0]
        return noun_phrase(noun, det, False, adj)
    det, plural = rng.choices(
        [("a", False), ("the", False), ("the", True), ("", True), ("some", True), ("number", True),
         ("this", False), ("this", True), ("that", False), ("that", True), ("owner", False), ("owner", True),
         ("your", False), ("our", False)],
        [26, 12, 7, 15, 3, 10, 5, 3, 3, 2, 6, 3, 3, 2])[0]
    if det == "number":
        det = rng.choice(list(NUMBERS))
    elif det == "owner":
        det = owner
    return noun_phrase(noun, det, plural, adj)


def nouns(*names: str) -> list[Noun]:
    return [NOUNS[n] for n in names]


FOODS = list(FOOD.values())
DRINK_LIST = list(DRINKS.values())
THING_LIST = list(THINGS.values())
ANIMAL_LIST = list(ANIMALS.values())
PORTABLE = nouns("book", "bag", "box", "phone", "computer", "pen", "key", "bicycle", "hat", "dress", "shoe",
                 "ball", "watch", "pencil", "cup", "glass", "plate", "map", "camera", "newspaper")

# ---------------------------------------------------------------------------------------
# Places and times: (English, Spanish) phrases appended to both sentences.

AT = {"home": ("at home", "en casa"), "school": ("at school", "en la escuela"),
      "work": ("at work", "en el trabajo"), "park": ("in the park", "en el parque"),
      "kitchen": ("in the kitchen", "en la cocina"), "garden": ("in the garden", "en el jardín"),
      "library": ("in the library", "en la biblioteca"), "office": ("in the office", "en la oficina"),
      "beach": ("at the beach", "en la playa"), "city": ("in the city", "en la ciudad"),
      "pool": ("in the pool", "en la piscina"), "river": ("in the river", "en el río"),
      "sea": ("in the sea", "en el mar"), "restaurant": ("at the restaurant", "en el restaurante"),
      "bed": ("in bed", "en la cama"), "hospital": ("at the hospital", "en el hospital")}

TO = {"school": ("to school", "a la escuela"), "work": ("to work", "al trabajo"), "home": ("home", "a casa"),
      "park": ("to the park", "al parque"), "beach": ("to the beach", "a la playa"),
      "market": ("to the market", "al mercado"), "library": ("to the library", "a la biblioteca"),
      "cinema": ("to the cinema", "al cine"), "hospital": ("to the hospital", "al hospital"),
      "station": ("to the station", "a la estación"), "airport": ("to the airport", "al aeropuerto")}

CITIES = [("Madrid", "Madrid"), ("London", "Londres"), ("Paris", "París"), ("Rome", "Roma"),
          ("New York", "Nueva York"), ("Mexico City", "Ciudad de México")]

HABITUAL = [("every day", "todos los días"), ("every morning", "todas las mañanas"),
            ("every night", "todas las noches"), ("every week", "todas las semanas"),
            ("in the morning", "por la mañana"), ("in the afternoon", "por la tarde"),
            ("at night", "por la noche"), ("on Mondays", "los lunes"), ("on Tuesdays", "los martes"),
            ("on Wednesdays", "los miércoles"), ("on Thursdays", "los jueves"), ("on Fridays", "los viernes"),
            ("on Saturdays", "los sábados"), ("on Sundays", "los domingos"),
            ("on weekends", "los fines de semana"), ("today", "hoy")]
SOON = [("today", "hoy"), ("tomorrow", "mañana"), ("now", "ahora"), ("tonight", "esta noche"),
        ("this weekend", "este fin de semana"), ("next week", "la próxima semana"),
        ("on Saturday", "el sábado"), ("on Sunday", "el domingo")]
NOW = [("today", "hoy"), ("now", "ahora")]
FREQUENCY = [("always", "siempre"), ("never", "nunca"), ("sometimes", "a veces"), ("usually", "normalmente")]

# ---------------------------------------------------------------------------------------
# Verb phrases.

@dataclass(frozen=True)
class Pred:
    """What a sentence says about its subject, in both languages.

    kind: "do" (English needs do/does for negation and questions), "be" (am/is/are),
    "can" (a modal), "like" (Spanish gustar-type verb: me gusta(n), le encanta(n)).
    """
    kind: str
    en: str                 # English verb, base form (unused for "be" and "can")
    en_rest: str            # English words after the verb
    es: str                 # Spanish infinitive
    es_rest: str            # Spanish words after the verb
    places: tuple[str, ...] = ()   # keys of AT that fit this activity
    when: str = "habitual"         # time phrases that fit: "habitual" (every day), "now" or "never"
    plural_object: bool = False    # for "like": gustan instead of gusta

    @property
    def en_inf(self) -> str:
        return join(self.en, self.en_rest)

    @property
    def es_inf(self) -> str:
        return join(self.es, self.es_rest)


def do(en: str, es: str, en_rest: str = "", es_rest: str = "", places: str = "", when: str = "habitual") -> Pred:
    return Pred("do", en, en_rest, es, es_rest, tuple(places.split()), when)


def with_object(verb_en: str, verb_es: str, choices: list[Noun], places: str = "", when: str = "habitual"):
    """A transitive verb phrase maker: picks an object from choices."""
    def make(rng: random.Random, subj: Subject) -> Pred:
        np = object_np(rng, rng.choice(choices), subj)
        return do(verb_en, verb_es, np.en, np.es, places, when)
    return make


def fixed(*options: tuple[str, str, str, str, str]):
    """Set phrases: (English verb, English rest, Spanish verb, Spanish rest, places)."""
    def make(rng: random.Random, subj: Subject) -> Pred:
        en, en_rest, es, es_rest, places = rng.choice(options)
        return do(en, es, en_rest, es_rest, places)
    return make


def own(verb_en: str, verb_es: str, items: list[Noun]):
    """A verb whose object belongs to the subject: I wash my car, she cleans her room."""
    def make(rng: random.Random, subj: Subject) -> Pred:
        noun = rng.choice(items)
        np = noun_phrase(noun, subj.en_poss, not noun.mass and rng.random() < 0.25)
        return do(verb_en, verb_es, np.en, np.es)
    return make


def with_person(verb_en: str, verb_es: str, places: str = ""):
    """Verbs of people take the personal a: I visit my grandmother -> visito a mi abuela."""
    def make(rng: random.Random, subj: Subject) -> Pred:
        np = person_np(rng, subj if rng.random() < 0.3 else None)
        while np.en.lower() == subj.en.lower():
            np = person_np(rng)
        return do(verb_en, verb_es, np.en, "a " + np.es, places)
    return make


def go(rng: random.Random, subj: Subject) -> Pred:
    if rng.random() < 0.2:
        en, es = rng.choice(CITIES)
        return do("go", "ir", "to " + en, "a " + es)
    en, es = rng.choice(list(TO.values()))
    return do("go", "ir", en, es)


def homework(rng: random.Random, subj: Subject) -> Pred:
    """I do my homework -> hago mi tarea; we do our homework -> hacemos nuestra tarea."""
    es_det = DETERMINERS_ES[subj.en_poss][1]
    return do("do", "hacer", f"{subj.en_poss} homework", f"{es_det} tarea", "home school library")


def live(rng: random.Random, subj: Subject) -> Pred:
    en, es = rng.choice(CITIES)
    return do("live", "vivir", "in " + en, "en " + es, when="never")


LANGUAGES = [("Spanish", "español"), ("English", "inglés"), ("French", "francés"), ("German", "alemán"),
             ("Italian", "italiano")]


def language(rng: random.Random, subj: Subject) -> Pred:
    en_verb, es_verb, places = rng.choice([("speak", "hablar", "home school work"), ("learn", "aprender", "school"),
                                           ("study", "estudiar", "home school library")])
    en, es = rng.choice(LANGUAGES)
    return do(en_verb, es_verb, en, es, places)


def play(rng: random.Random, subj: Subject) -> Pred:
    if rng.random() < 0.55:
        en, es = rng.choice([("soccer", "el fútbol"), ("tennis", "el tenis"), ("basketball", "el baloncesto"),
                             ("chess", "el ajedrez"), ("cards", "las cartas")])
        return do("play", "jugar", en, "a " + es, "park school home beach")
    en, es = rng.choice([("the guitar", "la guitarra"), ("the piano", "el piano"), ("the violin", "el violín")])
    return do("play", "tocar", en, es, "home school")


READABLE = nouns("book", "newspaper", "letter")
VERB_PHRASES = [  # (weight, maker)
    (10, with_object("eat", "comer", FOODS, "home kitchen school restaurant park")),
    (7, with_object("drink", "beber", DRINK_LIST, "home kitchen restaurant")),
    (6, with_object("buy", "comprar", FOODS + DRINK_LIST + PORTABLE + ANIMAL_LIST
                    + nouns("car", "house", "table", "chair", "shirt", "flower", "bed"))),
    (6, with_object("want", "querer", FOODS + DRINK_LIST + PORTABLE + ANIMAL_LIST + nouns("car", "house"),
                    when="now")),
    (7, with_object("have", "tener", PORTABLE + ANIMAL_LIST + nouns("car", "house"), when="never")),
    (4, with_object("need", "necesitar", FOODS + DRINK_LIST + PORTABLE, when="now")),
    (4, with_object("read", "leer", READABLE + nouns("map"), "home park library bed")),
    (3, with_object("write", "escribir", nouns("letter", "book", "song"), "home library office")),
    (3, with_object("sell", "vender", nouns("car", "house", "bicycle", "book", "computer", "phone",
                                           "horse", "watch", "camera", "hat"))),
    (2, with_object("open", "abrir", nouns("door", "window", "box", "book", "bag"))),
    (2, with_object("close", "cerrar", nouns("door", "window", "box", "book", "bag"))),
    (3, with_object("look for", "buscar", nouns("key", "phone", "bag", "book", "pen", "watch", "map", "ball"))),
    (2, with_object("find", "encontrar", nouns("key", "phone", "bag", "book", "pen", "watch", "ball"))),
    (2, with_object("use", "usar", nouns("phone", "computer", "pen", "car", "bicycle", "camera", "map"))),
    (2, with_object("bring", "traer", FOODS + DRINK_LIST + PORTABLE)),
    (2, with_object("cook", "cocinar", nouns("rice", "meat", "fish", "chicken", "soup", "pasta", "potato", "egg"),
                    "home kitchen")),
    (2, with_object("make", "hacer", nouns("cake", "pizza", "bread", "soup", "salad", "sandwich", "coffee", "tea"),
                    "home kitchen")),
    (1, with_object("draw", "dibujar", ANIMAL_LIST + nouns("house", "car", "tree", "flower", "map"), "home school")),
    (1, with_object("paint", "pintar", nouns("house", "room", "door", "chair", "table", "kitchen"))),
    (2, with_object("see", "ver", nouns("car", "house", "tree", "flower", "bird", "photo", "map"))),
    (2, own("wash", "lavar", nouns("car", "shirt", "dress", "cup", "plate", "glass"))),
    (2, own("clean", "limpiar", nouns("room", "house", "kitchen", "car", "table", "window"))),
    (1, homework),
    (4, with_person("visit", "visitar")), (3, with_person("call", "llamar")), (3, with_person("help", "ayudar")),
    (2, with_person("wait for", "esperar", "park school")), (2, with_person("see", "ver", "park school")),
    (12, fixed(("work", "", "trabajar", "", "home school office hospital"),
               ("study", "", "estudiar", "", "home school library"), ("sleep", "", "dormir", "", "home bed"),
               ("run", "", "correr", "", "park beach city"), ("swim", "", "nadar", "", "pool beach river sea"),
               ("dance", "", "bailar", "", "home kitchen"), ("sing", "", "cantar", "", "home school"),
               ("walk", "", "caminar", "", "park beach city"), ("cook", "", "cocinar", "", "home kitchen"),
               ("read", "", "leer", "", "home park library bed"), ("write", "", "escribir", "", "home library"),
               ("travel", "", "viajar", "", ""), ("rest", "", "descansar", "", "home garden"),
               ("drive", "", "conducir", "", ""), ("play", "", "jugar", "", "park garden home school beach"),
               ("eat", "", "comer", "", "home kitchen school restaurant"))),
    (4, fixed(("listen to", "music", "escuchar", "música", "home"),
              ("watch", "TV", "ver", "la televisión", "home"),
              ("watch", "a movie", "ver", "una película", "home"),
              ("watch", "movies", "ver", "películas", "home"),
              ("have", "breakfast", "desayunar", "", "home kitchen"),
              ("have", "lunch", "almorzar", "", "home school work restaurant"),
              ("have", "dinner", "cenar", "", "home restaurant"),
              ("take", "the bus", "tomar", "el autobús", ""), ("take", "the train", "tomar", "el tren", ""),
              ("take", "a taxi", "tomar", "un taxi", ""))),
    (5, go), (2, live), (4, language), (4, play),
]


def verb_maker(rng: random.Random):
    return rng.choices([m for _, m in VERB_PHRASES], [w for w, _ in VERB_PHRASES])[0]


def verb_phrase(rng: random.Random, subj: Subject) -> Pred:
    return verb_maker(rng)(rng, subj)


# ---------------------------------------------------------------------------------------
# Sentences.

EN_BE = ("am", "are", "is", "are", "are")
EN_CONTRACTED = {"do not": "don't", "does not": "doesn't", "is not": "isn't", "are not": "aren't",
                 "cannot": "can't"}
ES_PRONOUN_IO = ("me", "te", "le", "nos", "les")


def en_clause(rng: random.Random, subj: Subject, pred: Pred, mode: str, freq: str = "") -> str:
    """English word order: statement, negation ("neg") or yes/no question ("q")."""
    third = subj.person == EL
    if pred.kind == "be":
        aux, main = EN_BE[subj.person], ""
    elif pred.kind == "can":
        aux, main = "can", ""
    else:
        aux = "does" if third else "do"
        main = pred.en if mode != "statement" else third_singular(pred.en) if third else pred.en
    if mode == "q":
        return join(aux, subj.en, main, pred.en_rest)
    if mode == "neg":
        negated = "cannot" if aux == "can" else aux + " not"
        if rng.random() < 0.5:
            negated = EN_CONTRACTED.get(negated, negated)
        return join(subj.en, negated, main, pred.en_rest)
    if pred.kind in ("be", "can"):
        return join(subj.en, aux, pred.en_rest)
    return join(subj.en, freq, main, pred.en_rest)


def es_clause(subj: Subject, pred: Pred, mode: str, freq: str = "", keep_pronoun: bool = False) -> str:
    """Spanish word order; yo/tú/nosotros are dropped (the verb ending says who) unless kept."""
    no = "no" if mode == "neg" else ""
    if pred.kind == "like":      # A él no le gustan los gatos. / Me gusta nadar.
        lead = "" if subj.pronoun and subj.person in (YO, TU, NOSOTROS) else "a " + subj.es
        verb = conjugate(pred.es, ELLOS if pred.plural_object else EL)
        return join(lead, no, ES_PRONOUN_IO[subj.person], verb, pred.es_rest)
    dropped = subj.pronoun and subj.person in (YO, TU, NOSOTROS) and not keep_pronoun
    return join("" if dropped else subj.es, freq, no, conjugate(pred.es, subj.person), pred.es_rest)


def finish(en: str, es: str, mode: str, tail: tuple[str, str] = ("", "")) -> tuple[str, str]:
    """Add the tail (place, time), punctuation and capitals; apply a + el -> al, a -> an."""
    en, es = join(en, tail[0]), join(es, tail[1])
    end = "?" if mode == "q" else "." if mode != "!" else "!"
    if mode == "q":
        es = "¿" + es
    elif mode == "!":
        es = "¡" + es
    return polish_en(en + end), polish_es(es + end)


def polish_en(text: str) -> str:
    text = re.sub(r"\ba (?=[aeiou])", "an ", text)
    return text[0].upper() + text[1:]


def polish_es(text: str) -> str:
    text = re.sub(r"\b(a|de) el\b", lambda m: "al" if m[1] == "a" else "del", text)
    text = re.sub(r"\by (?=h?i[^aeiouáéíóú])", "e ", text)
    i = 1 if text[0] in "¿¡" else 0
    return text[:i] + text[i].upper() + text[i + 1:]


def pick_mode(rng: random.Random, subj: Subject | None = None, pred: Pred | None = None) -> str:
    """Statement, negation or question. "some apples" only in statements, and "I" asks only
    with can (Can I swim? but not Do I swim?)."""
    if pred is not None and "some" in pred.en_rest.split():
        return "statement"
    mode = rng.choices(["statement", "neg", "q"], [50, 25, 25])[0]
    if mode == "q" and subj is not None and subj.en == "I" and pred is not None and pred.kind != "can":
        mode = rng.choice(["statement", "neg"])
    return mode


def tail(rng: random.Random, pred: Pred, times: list[tuple[str, str]],
         p_time: float = 0.45, p_place: float = 0.3) -> tuple[str, str]:
    """An optional place ("in the park") then an optional time ("every day")."""
    en, es = [], []
    if pred.places and rng.random() < p_place:
        place = rng.choice(pred.places)
        en.append(AT[place][0])
        es.append(AT[place][1])
    if times and rng.random() < p_time:
        te, ts = rng.choice(times)
        en.append(te)
        es.append(ts)
    return " ".join(en), " ".join(es)


# Each template returns one (English, Spanish) pair.

def simple(rng: random.Random) -> tuple[str, str]:
    """I eat bread every day. / Does she speak French? / They do not go to school on Sundays."""
    subj = subject(rng)
    pred = verb_phrase(rng, subj)
    mode = pick_mode(rng, subj, pred)
    freq_en = freq_es = ""
    if mode == "statement" and pred.when == "habitual" and "some" not in pred.en_rest.split() and rng.random() < 0.15:
        freq_en, freq_es = rng.choice(FREQUENCY)
    times = [] if freq_en else {"habitual": HABITUAL, "now": NOW, "never": []}[pred.when]
    return finish(en_clause(rng, subj, pred, mode, freq_en), es_clause(subj, pred, mode, freq_es), mode,
                  tail(rng, pred, times))


MODALS = [  # (weight, English verb, kind, Spanish verb, Spanish link, times)
    (5, "want", "do", "querer", "", SOON), (3, "need", "do", "necesitar", "", SOON),
    (4, "have", "do", "tener", "que", SOON), (5, "", "can", "poder", "", SOON),
    (4, "like", "like", "gustar", "", HABITUAL), (2, "love", "like", "encantar", "", HABITUAL),
    (5, "going", "be", "ir", "a", SOON),
]


def modal(rng: random.Random) -> tuple[str, str]:
    """I want to sleep. / Can you swim? / She is not going to work tomorrow. / Me gusta bailar."""
    subj = subject(rng)
    _, en, kind, es, link, times = rng.choices(MODALS, [m[0] for m in MODALS])[0]
    inner = verb_phrase(rng, subj)
    while inner.en in ("want", "need") or inner.when == "never" or kind == "like" and inner.en in ("find", "look for"):
        inner = verb_phrase(rng, subj)   # not "can need", "like to find", "is going to have"
    en_rest = inner.en_inf if kind == "can" else "to " + inner.en_inf
    pred = Pred(kind, en, join(en, en_rest) if kind == "be" else en_rest, es, join(link, inner.es_inf),
                inner.places)
    mode = pick_mode(rng, subj, pred)
    return finish(en_clause(rng, subj, pred, mode), es_clause(subj, pred, mode), mode,
                  tail(rng, pred, times, p_time=0.35, p_place=0.2))


def likes(rng: random.Random) -> tuple[str, str]:
    """I like coffee. -> Me gusta el café. / Does Tom like cats? -> ¿A Tom le gustan los gatos?"""
    subj = subject(rng)
    noun = rng.choice(FOODS + DRINK_LIST + ANIMAL_LIST + THING_LIST)
    if rng.random() < 0.6:          # generic: cats, coffee
        np = noun_phrase(noun, "generic", not noun.mass, pick_adj(rng, noun, 0.2))
    else:                           # specific: the red car, your cats
        det = rng.choice(["the", "the", "this", "that", subj.en_poss, "your"])
        np = noun_phrase(noun, det, not noun.mass and rng.random() < 0.4, pick_adj(rng, noun, 0.3))
    en_verb, es_verb = rng.choice([("like", "gustar"), ("like", "gustar"), ("love", "encantar")])
    pred = Pred("like", en_verb, np.en, es_verb, np.es, plural_object=np.plural)
    mode = pick_mode(rng, subj, pred)
    return finish(en_clause(rng, subj, pred, mode), es_clause(subj, pred, mode), mode)


PERSON_ADJ_SER = [A("tall", "alto"), A("short", "bajo"), Adj("young", ("joven", "joven", "jóvenes", "jóvenes")),
                  A("strong", "fuerte"),
                  A("intelligent", "inteligente"), A("kind", "amable"), A("funny", "divertido"),
                  A("shy", "tímido"), A("rich", "rico"), A("poor", "pobre"), A("lazy", "perezoso"),
                  A("nice", "simpático")]
PERSON_ADJ_ESTAR = [A("tired", "cansado"), A("sick", "enfermo"), A("busy", "ocupado"), A("ready", "listo"),
                    A("happy", "contento"), A("sad", "triste"), A("angry", "enfadado"),
                    A("nervous", "nervioso"), A("bored", "aburrido"), A("worried", "preocupado")]
TENER_IDIOMS = [("hungry", "hambre", "f"), ("thirsty", "sed", "f"), ("cold", "frío", "m"), ("hot", "calor", "m"),
                ("sleepy", "sueño", "m"), ("afraid", "miedo", "m"), ("in a hurry", "prisa", "f"),
                ("lucky", "suerte", "f"), ("right", "razón", "f")]


def describe_person(rng: random.Random) -> tuple[str, str]:
    """I am tired. -> Estoy cansado. / Is she tall? -> ¿Ella es alta? / I am hungry. -> Tengo hambre."""
    subj = subject(rng)
    plural = subj.person in (NOSOTROS, ELLOS)
    very = rng.random() < 0.2
    r = rng.random()
    if r < 0.7:                 # ser for what someone is (tall), estar for how they are (tired)
        es = "ser" if r < 0.35 else "estar"
        adj = rng.choice(PERSON_ADJ_SER if es == "ser" else PERSON_ADJ_ESTAR)
        en_rest = join("very" if very else "", adj.en)
        es_rest = join("muy" if very else "", adj.agree(subj.gender, plural))
        times = [] if es == "ser" else NOW
    else:                       # tener: I am hungry -> tengo hambre
        en, noun, gender = rng.choice(TENER_IDIOMS)
        if noun == "razón" or en == "in a hurry":
            very = False
        times = [] if noun == "razón" else NOW   # not "I am right now"
        much = ("mucho" if gender == "m" else "mucha") if very else ""
        en_rest, es, es_rest = join("very" if very else "", en), "tener", join(much, noun)
    pred = Pred("be", "", en_rest, es, es_rest)
    mode = pick_mode(rng, subj, pred)
    return finish(en_clause(rng, subj, pred, mode), es_clause(subj, pred, mode), mode,
                  tail(rng, pred, times, p_time=0.3))


def where_person(rng: random.Random) -> tuple[str, str]:
    """We are in the park. -> Estamos en el parque. / Is Tom at home now? -> ¿Tom está en casa ahora?"""
    subj = subject(rng)
    if rng.random() < 0.15:
        en, es = rng.choice(CITIES)
        en, es = "in " + en, "en " + es
    else:
        en, es = rng.choice([v for k, v in AT.items() if k not in ("pool", "river", "sea")])
    pred = Pred("be", "", en, "estar", es)
    mode = pick_mode(rng, subj, pred)
    return finish(en_clause(rng, subj, pred, mode), es_clause(subj, pred, mode), mode,
                  tail(rng, pred, NOW + [("in the morning", "por la mañana"), ("on Sundays", "los domingos")],
                       p_time=0.35))


AGES = [("ten", "diez"), ("twelve", "doce"), ("fifteen", "quince"), ("twenty", "veinte"), ("thirty", "treinta")]


def age(rng: random.Random) -> tuple[str, str]:
    """I am twenty years old. -> Tengo veinte años."""
    subj = subject(rng)
    en, es = rng.choice(AGES)
    pred = Pred("be", "", f"{en} years old", "tener", f"{es} años")
    mode = pick_mode(rng, subj, pred)
    return finish(en_clause(rng, subj, pred, mode), es_clause(subj, pred, mode), mode)


def thing_subject(rng: random.Random, noun: Noun) -> Subject:
    plural = not noun.mass and rng.random() < 0.35
    det = rng.choices(["the", "this", "that", "my", "your", "his", "her", "our", "their"],
                      [40, 12, 6, 14, 10, 5, 5, 4, 4])[0]
    np = noun_phrase(noun, det, plural)
    return Subject(np.en, np.es, ELLOS if plural else EL, noun.gender, False)


def describe_thing(rng: random.Random) -> tuple[str, str]:
    """The car is red. -> El coche es rojo. / The soup is not hot. -> La sopa no está caliente."""
    noun = rng.choice([n for n in NOUNS.values() if n.adjs])
    subj = thing_subject(rng, noun)
    group = rng.choice(noun.adjs)
    adj = rng.choice(ADJECTIVES[group])
    very = group not in COLORS and rng.random() < 0.15    # very big, but not very red
    pred = Pred("be", "", join("very" if very else "", adj.en), "estar" if adj.estar else "ser",
                join("muy" if very else "", adj.agree(noun.gender, subj.person == ELLOS)))
    mode = pick_mode(rng, subj, pred)
    return finish(en_clause(rng, subj, pred, mode), es_clause(subj, pred, mode), mode)


SPOTS = {  # where things can be: (English, Spanish)
    "thing": [("on the table", "en la mesa"), ("in the box", "en la caja"), ("in the car", "en el coche"),
              ("in the bag", "en el bolso"), ("under the bed", "debajo de la cama"),
              ("under the table", "debajo de la mesa"), ("next to the door", "al lado de la puerta"),
              ("next to the window", "al lado de la ventana"), ("in the kitchen", "en la cocina"),
              ("in my room", "en mi habitación")],
    "food": [("on the table", "en la mesa"), ("in the kitchen", "en la cocina"),
             ("in the fridge", "en la nevera"), ("in the bag", "en el bolso")],
    "animal": [("in the garden", "en el jardín"), ("in the house", "en la casa"),
               ("under the table", "debajo de la mesa"),
               ("under the car", "debajo del coche"), ("in the park", "en el parque"),
               ("next to the door", "al lado de la puerta"), ("on the bed", "en la cama"),
               ("in the kitchen", "en la cocina")],
}


def spot_for(rng: random.Random, noun: Noun) -> tuple[str, str]:
    kind = "animal" if noun in ANIMAL_LIST else "food" if noun in FOODS or noun in DRINK_LIST else "thing"
    return rng.choice(SPOTS[kind])


LOCATABLE = PORTABLE + ANIMAL_LIST + FOODS + DRINK_LIST


def where_thing(rng: random.Random) -> tuple[str, str]:
    """The keys are in the bag. -> Las llaves están en el bolso."""
    noun = rng.choice(LOCATABLE)
    subj = thing_subject(rng, noun)
    en, es = spot_for(rng, noun)
    pred = Pred("be", "", en, "estar", es)
    mode = pick_mode(rng, subj, pred)
    return finish(en_clause(rng, subj, pred, mode), es_clause(subj, pred, mode), mode)


def there_is(rng: random.Random) -> tuple[str, str]:
    """There is a cat in the garden. -> Hay un gato en el jardín. / There is no milk. -> No hay leche."""
    noun = rng.choice(LOCATABLE)
    spot_en, spot_es = spot_for(rng, noun)
    mode = pick_mode(rng)
    adj = pick_adj(rng, noun, 0.2)
    if noun.mass:
        np, plural = noun_phrase(noun, "", False, adj), False
    elif mode == "neg":
        plural = rng.random() < 0.5
        np = noun_phrase(noun, "" if plural else "no", plural, adj)
    else:
        det, plural = rng.choice([("a", False), ("a", False), ("", True), ("two", True), ("three", True),
                                  ("five", True)] + [("some", True)] * (mode == "statement"))
        np = noun_phrase(noun, det, plural, adj)
    be = "are" if plural else "is"
    if mode == "q":
        en = f"{be} there {np.en} {spot_en}"
        es = f"hay {np.es} {spot_es}"
    elif mode == "neg":
        en = f"there {be} {'no ' if noun.mass else ''}{np.en} {spot_en}"
        if plural:
            en = f"there are no {np.en} {spot_en}"
        es = f"no hay {np.es} {spot_es}"
    else:
        en = f"there {be} {np.en} {spot_en}"
        es = f"hay {np.es} {spot_es}"
    return finish(en, es, mode)


def exclaim(rng: random.Random) -> tuple[str, str]:
    """What a big dog! -> ¡Qué perro tan grande!"""
    noun = rng.choice([n for n in NOUNS.values() if n.adjs])
    adj = rng.choice(ADJECTIVES[rng.choice(noun.adjs)])
    plural = not noun.mass and rng.random() < 0.3
    a = "" if plural or noun.mass else "a "
    en = f"what {a}{adj.en} {noun.en_pl if plural else noun.en}"
    es = f"qué {noun.es_pl if plural else noun.es} tan {adj.agree(noun.gender, plural)}"
    return finish(en, es, "!")


WEATHER = [("cold", "hace frío"), ("hot", "hace calor"), ("sunny", "hace sol"), ("windy", "hace viento")]
SEASONS = [("today", "hoy"), ("in winter", "en invierno"), ("in summer", "en verano"),
           ("in the morning", "por la mañana"), ("at night", "por la noche"), ("in Madrid", "en Madrid"),
           ("in London", "en Londres")]


NOT_BE = ["is not", "isn't"]


def weather(rng: random.Random) -> tuple[str, str]:
    """It is cold in winter. -> Hace frío en invierno. / Is it hot today? -> ¿Hace calor hoy?"""
    en_adj, es = rng.choice(WEATHER)
    when_en, when_es = rng.choice(SEASONS)
    mode = pick_mode(rng)
    if mode == "q":
        en = f"is it {en_adj} {when_en}"
    elif mode == "neg":
        en = f"it {rng.choice(NOT_BE)} {en_adj} {when_en}"
        es = "no " + es
    else:
        en = f"it is {en_adj} {when_en}"
    return finish(en, f"{es} {when_es}", mode)


def contrast(rng: random.Random) -> tuple[str, str]:
    """I work and you study. -> Yo trabajo y tú estudias. / I speak French, but he speaks German.
    -> Yo hablo francés, pero él habla alemán. (Both pronouns stay: they are contrasted.)"""
    first, second = rng.sample(PRONOUNS, 2)
    but = rng.random() < 0.3          # "but" contrasts two uses of the same verb
    make = verb_maker(rng)
    one = make(rng, first) if but else verb_phrase(rng, first)
    two = make(rng, second) if but else verb_phrase(rng, second)
    while but and (two.en, two.en_rest) == (one.en, one.en_rest):
        two = make(rng, second)
    en = [en_clause(rng, subj, pred, "statement") for subj, pred in ((first, one), (second, two))]
    es = [es_clause(subj, pred, "statement", keep_pronoun=True) for subj, pred in ((first, one), (second, two))]
    return finish(", but ".join(en), ", pero ".join(es), "statement") if but else \
        finish(" and ".join(en), " y ".join(es), "statement")


TEMPLATES = [(34, simple), (16, modal), (8, likes), (10, describe_person), (5, where_person), (2, age),
             (9, describe_thing), (6, where_thing), (5, there_is), (1, exclaim), (1, weather), (3, contrast)]


def generate(seed: int = SEED, size: int = SIZE) -> list[tuple[str, str]]:
    """size unique (English, Spanish) pairs, deterministically shuffled."""
    rng = random.Random(seed)
    templates, weights = [t for _, t in TEMPLATES], [w for w, _ in TEMPLATES]
    pairs: dict[str, str] = {}
    for _ in range(size * 50):
        en, es = rng.choices(templates, weights)[0](rng)
        if pairs.setdefault(en, es) != es:
            raise AssertionError(f"two translations for {en!r}: {pairs[en]!r} and {es!r}")
        if len(pairs) == size:
            break
    else:
        raise RuntimeError(f"the grammar only produced {len(pairs)} distinct sentences")
    out = list(pairs.items())
    rng.shuffle(out)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the .tsv file to write")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--size", type=int, default=SIZE, help="number of distinct pairs")
    args = parser.parse_args(argv)
    pairs = generate(args.seed, args.size)
    args.out.write_text("".join(f"{en}\t{es}\n" for en, es in pairs), encoding="utf-8", newline="\n")
    print(f"wrote {len(pairs):,} pairs to {args.out}")


if __name__ == "__main__":
    main()
