"""autograder/translator/sentences.py: lines cut into sentences, each in the form of the
training data."""

import pytest

from autograder.translator.sentences import normalise, split


@pytest.mark.parametrize("line, sentences", [
    ("The water is cold. Do you have a dog?", ["The water is cold.", "Do you have a dog?"]),
    ("the water is cold. do you have a dog", ["the water is cold.", "do you have a dog"]),
    ("Mr. Smith is here. He is tired!", ["Mr. Smith is here.", "He is tired!"]),
    ("J. K. Rowling wrote it. I read it.", ["J. K. Rowling wrote it.", "I read it."]),
    ("It costs 3.5 euros. E.g. this one.", ["It costs 3.5 euros.", "E.g. this one."]),
    ('"Stop!" he said. Then he left.', ['"Stop!" he said.', "Then he left."]),
    ("Wait... what?", ["Wait... what?"]),
    ("Hola. ¿Qué tal? ¡Muy bien!", ["Hola.", "¿Qué tal?", "¡Muy bien!"]),
    ("I like cats (and dogs). You too?", ["I like cats (and dogs).", "You too?"]),
    ("   ", []),
])
def test_split_cuts_at_sentence_ends_only(line, sentences):
    """Does a line split after . ? ! followed by a space, and at ¿ ¡ openings, but not after
    an abbreviation, an initial, a decimal point or before a lower-case word in a cased line?"""
    assert split(line) == sentences


def test_split_keeps_every_sentence_of_a_long_line():
    """Does a line of 60 sentences give 60 sentences, none lost?"""
    line = " ".join(f"Sentence number {i} is here." for i in range(60))
    assert split(line) == [f"Sentence number {i} is here." for i in range(60)]


@pytest.mark.parametrize("typed, normalised", [
    ("the water is cold", "The water is cold."),
    ("THE WATER IS COLD.", "The water is cold."),
    ("i think i am hungry", "I think I am hungry."),
    ("do you have a dog", "Do you have a dog?"),
    ("WHERE IS THE STATION", "Where is the station?"),
    ("they read on wednesdays", "They read on Wednesdays."),
    ("you may go in may", "You may go in May."),
    ("The water is cold", "The water is cold."),
    ("Tom is here.", "Tom is here."),
    ("NASA and Tom", "NASA and Tom."),
    ('"Stop!"', '"Stop!"'),
])
def test_normalise_gives_the_form_of_the_training_data(typed, normalised):
    """Does a sentence typed all in lower or upper case get sentence case (I, days, months
    after in/of), a missing final mark get "?" after a question word and "." otherwise, and a
    cased sentence keep its case?"""
    assert normalise(typed) == normalised
